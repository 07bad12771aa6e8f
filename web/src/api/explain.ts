// Which response header explains the answer, and why — the inspector highlights these.
// The choices follow Ursula v0.9.0, Conditional Writes: a Stream-Seq 409 is explained by
// Stream-Last-Seq, a producer
// 409 by Producer-Expected-Seq, a closed 409 by Stream-Closed, a 412 by the new token.
import type { Exchange } from "./types";
import { classify } from "./outcome";

export interface Explanation {
  header: string;
  why: string;
}

export function explainingHeaders(ex: Exchange): Explanation[] {
  switch (classify(ex)) {
    case "409-seq":
      return [
        { header: "stream-last-seq", why: "The stream's last accepted Stream-Seq. Yours was not bytewise greater, so nothing was committed." },
        { header: "stream-next-offset", why: "The current tail: read on to here, count the new events, and retry." },
      ];
    case "409-producer":
      return [
        { header: "producer-expected-seq", why: "The Producer-Seq the server expects next from this producer and epoch." },
        { header: "producer-received-seq", why: "The Producer-Seq you sent." },
      ];
    case "409-closed":
      return [{ header: "stream-closed", why: "The stream is closed: it accepts no more appends." }];
    case "409-content-type":
      return [{ header: "stream-next-offset", why: "Nothing was appended: the request's Content-Type differs from the stream's (parameters count)." }];
    case "412":
      return [{ header: "stream-incarnation", why: "The token of the stream at this URL now; the one you sent is not it." }];
    case "410-gone":
      return [{ header: "stream-earliest-offset", why: "The retained floor: the stream is readable from here; bootstrap for what came before." }];
    case "401":
    case "403-scope":
      return [{ header: "www-authenticate", why: "What the server asks for: a bearer token, or (insufficient_scope) the scope this request needs." }];
    case "403-stale-epoch":
      return [{ header: "producer-epoch", why: "The producer's current epoch: a newer owner took over, so yours is fenced." }];
    case "duplicate":
      return [
        { header: "producer-seq", why: "The highest Producer-Seq accepted: this retry was already written, so nothing new was." },
        { header: "stream-next-offset", why: "Present only when you repeated the producer's newest write: its original offset." },
      ];
    case "accepted":
      return [{ header: "stream-next-offset", why: "The new tail after your append." }];
    case "created":
      return [{ header: "stream-incarnation", why: "Keep this token: send it back to be sure you talk to this stream and not a recreated one." }];
    default:
      return [];
  }
}
