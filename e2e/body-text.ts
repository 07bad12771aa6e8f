// A response body read as it arrives, for tests that watch a live response (SSE) before it ends.

export interface BodyText {
  /** Everything received so far, decoded. */
  readonly text: string;
  /** Settles when the body ends, or rejects if reading it fails (an abort, a dropped connection). */
  readonly ended: Promise<void>;
}

export function bodyText(res: Response): BodyText {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const body = { text: "", ended: Promise.resolve() };
  body.ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      body.text += decoder.decode(value, { stream: true });
    }
  })();
  return body;
}
