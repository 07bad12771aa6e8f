// "Retry from the 409": offered only on a 409 with Stream-Last-Seq, the only 409 a Stream-Seq
// check gives; every other 409 is an error, and retrying it blindly would be wrong. The plan
// (retryPlan.ts) runs on ursa-client and loads with the first retry; the retry resends the
// person's own request with only Stream-Seq changed.
import type { Exchange, ProtocolRequest } from "../api/types";
import { getHeader } from "../api/headers";

export interface RetryPlan {
  lastSeq: string;
  nextOffset?: string;
  method: "prefix-count" | "next-value";
  /** Prefix-count only: the failed attempt's count, the events read on, and their sum. */
  n?: number;
  k?: number;
  total?: number;
  seq: string;
  explanation: string;
  warning?: string;
  reads: Exchange[];
}

export function retryEligible(ex: Exchange | null | undefined): boolean {
  return ex?.response?.status === 409 && getHeader(ex.response.headers, "stream-last-seq") !== undefined;
}

/** The retry keeps every header of the refused attempt; only Stream-Seq changes. */
export function retryRequest(req: ProtocolRequest, seq: string): ProtocolRequest {
  return { ...req, headers: req.headers.map(([k, v]) => [k, k.toLowerCase() === "stream-seq" ? seq : v] as [string, string]) };
}
