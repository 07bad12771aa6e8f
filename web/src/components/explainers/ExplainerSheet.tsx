// All Stream-Seq explainers together, for the labs' side column and the composer's "Rules".
import { BytewiseExplainer } from "./BytewiseExplainer";
import { AsciiExplainer, ByteCapExplainer, DedupExplainer } from "./SeqRulesExplainer";

export function ExplainerSheet() {
  return (
    <div class="explainers">
      <BytewiseExplainer />
      <AsciiExplainer />
      <ByteCapExplainer />
      <DedupExplainer />
    </div>
  );
}
