// The stream and bucket counts one transaction changed, collected in its Batch and added to the
// stored counts before COMMIT (stream-counts.ts).

/** What one transaction changed: streams per bucket, and buckets. */
export class CountChanges {
  readonly streams = new Map<string, number>();
  buckets = 0;
  stream(bucket: string, delta: number): void {
    this.streams.set(bucket, (this.streams.get(bucket) ?? 0) + delta);
  }
}
