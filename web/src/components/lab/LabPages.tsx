// The lab pages, as one chunk that LabPage.tsx loads on the first visit to a lab.
export { RaceLabPage } from "./RaceLabPage";
export { OutboxLabPage } from "./OutboxLabPage";
export { IncarnationLabPage } from "./IncarnationLabPage";
export { CompactionLabPage } from "./CompactionLabPage";
