// The labs load on the first visit to one: their pages, their models and ursa-client, which they
// run on, are a chunk of their own, so a console that never opens a lab never downloads them.
import { signal } from "@preact/signals";

type Pages = typeof import("./LabPages");
export type LabName = "race" | "outbox" | "incarnation" | "compaction";

const pages = signal<Pages | null>(null);
const failed = signal<string | null>(null);
let loading: Promise<void> | null = null;

function load(): void {
  loading ??= import("./LabPages").then(
    (m) => void (pages.value = m),
    (e: unknown) => {
      loading = null;
      failed.value = e instanceof Error ? e.message : String(e);
    },
  );
}

export function LabPage({ name }: { name: LabName }) {
  const p = pages.value;
  if (!p) {
    load();
    return <div class={failed.value ? "note bad" : "empty"}>{failed.value ? `The lab could not be loaded: ${failed.value}` : "Loading the lab…"}</div>;
  }
  const Page = { race: p.RaceLabPage, outbox: p.OutboxLabPage, incarnation: p.IncarnationLabPage, compaction: p.CompactionLabPage }[name];
  return <Page />;
}
