// What every lab's verdict says, whatever the lab: what happened, what the guard prevented (or
// why it could not), and the one thing to remember. Each lab judges its run into this shape from
// the server's answers; components/lab/LabVerdict.tsx shows it.
export interface LabLesson {
  ok: boolean;
  happened: string;
  prevented: string;
  remember: string;
}
