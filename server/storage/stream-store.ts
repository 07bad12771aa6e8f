// The stream writes of Store, written once for every engine: each is a plan of protocol/writes.ts
// run through the engine's one `transact`. An engine extends this and implements `transact`
// (loading and applying) and the reads; what a write loads, decides and answers is not its own.

import type { AppendDecision, AppendRequest } from "../protocol/append";
import type { CreateRequest } from "../protocol/create";
import type { ResourceTarget } from "../protocol/retention";
import type { PublishRequest } from "../protocol/snapshot";
import {
  appendWrite,
  attrsWrite,
  batchWrite,
  createWrite,
  deleteWrite,
  publishWrite,
  retentionWrite,
  type AttrsOutcome,
  type BatchOutcome,
  type BatchRequest,
  type CreateOutcome,
  type DeleteOutcome,
  type PublishOutcome,
  type RetentionOutcome,
  type WritePlan,
} from "../protocol/writes";
import type { SnapshotUpload } from "./store";

export abstract class StreamStore {
  abstract transact<T>(plan: WritePlan<T, SnapshotUpload>): Promise<T>;

  append(key: string, request: AppendRequest): Promise<AppendDecision> {
    return this.transact(appendWrite(key, request));
  }

  create(key: string, request: CreateRequest): Promise<CreateOutcome> {
    return this.transact(createWrite(key, request));
  }

  delete(key: string, incarnation: string | null): Promise<DeleteOutcome> {
    return this.transact(deleteWrite(key, incarnation));
  }

  appendBatch(key: string, request: BatchRequest): Promise<BatchOutcome> {
    return this.transact(batchWrite(key, request));
  }

  putAttrs(key: string, incarnation: string | null, attrs: string | null): Promise<AttrsOutcome> {
    return this.transact(attrsWrite(key, incarnation, attrs));
  }

  publishSnapshot(key: string, upload: SnapshotUpload, request: PublishRequest, digest: string, mentionsBoundary: boolean): Promise<PublishOutcome> {
    return this.transact(publishWrite(key, upload, request, digest, mentionsBoundary));
  }

  advanceRetention(key: string, target: ResourceTarget, incarnation: string | null): Promise<RetentionOutcome> {
    return this.transact(retentionWrite(key, target, incarnation));
  }
}
