// The shell: sidebar plus the page the URL names.
import { route } from "./state/router";
import { Sidebar } from "./components/layout/Sidebar";
import { BucketsPage } from "./components/browse/BucketsPage";
import { BucketPage } from "./components/browse/BucketPage";
import { StreamPage } from "./components/stream/StreamPage";
import { ComposerPage } from "./components/composer/ComposerPage";
import { TimelinePage } from "./components/timeline/TimelinePage";
import { LabPage } from "./components/lab/LabPage";
import { StartPage } from "./components/learn/StartPage";
import { ServerPage } from "./components/server/ServerPage";
import { GlossaryPage } from "./components/learn/GlossaryPage";
import { Link } from "./components/common/Link";
import { TokenDialog } from "./components/access/TokenDialog";
import { auth } from "./state/auth";

function Page() {
  const r = route.value;
  switch (r.name) {
    case "start":
      return <StartPage />;
    case "server":
      return <ServerPage />;
    case "glossary":
      return <GlossaryPage />;
    case "buckets":
      return <BucketsPage query={r.query} />;
    case "bucket":
      return <BucketPage bucket={r.bucket} query={r.query} />;
    case "stream":
      return <StreamPage key={`${r.bucket}/${r.stream}`} bucket={r.bucket} stream={r.stream} query={r.query} />;
    case "compose":
      return <ComposerPage query={r.query} />;
    case "timeline":
      return <TimelinePage />;
    case "race":
    case "outbox":
    case "incarnation":
    case "compaction":
      return <LabPage name={r.name} />;
    default:
      return (
        <div class="empty">
          No such page. <Link href="/ui/">Start</Link> or <Link href="/ui/buckets">browse buckets</Link>.
        </div>
      );
  }
}

export function App() {
  // A new token can see other things: every page and panel is built again and reads afresh.
  const epoch = auth.epoch.value;
  return (
    <div class="app" key={epoch}>
      <Sidebar />
      <main id="main">
        <Page />
      </main>
      <TokenDialog />
    </div>
  );
}
