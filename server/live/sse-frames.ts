// SSE framing (spec §4.4), written once. Payload lines are split on CRLF, CR and LF so data can
// never end an event early or inject one. Control events are exactly `data:{json}`.
//
// Every data and control event carries the offset after it as its SSE `id`. A browser's
// EventSource reconnects to the same URL by itself when a response ends (every
// --sse-max-duration), and sends the last id back as Last-Event-ID; the read resumes there
// instead of replaying from the URL's offset. The spec is silent on ids; parsers that do not use
// them skip the line.

const LINE_BREAK = /\r\n|\r|\n/;

export function dataEvent(payload: string, nextOffset: string): string {
  let out = "event: data\n";
  for (const line of payload.split(LINE_BREAK)) {
    // Parsers strip one space after `data:`; adding one only where the line starts with a space
    // keeps that space while the common case stays `data:line`, as the conformance suite reads it.
    out += line.startsWith(" ") ? `data: ${line}\n` : `data:${line}\n`;
  }
  return `${out}id:${nextOffset}\n\n`;
}

export interface Control {
  streamNextOffset: string;
  streamCursor?: string;
  upToDate?: true;
  streamClosed?: true;
}

export function controlEvent(control: Control): string {
  return `event: control\ndata:${JSON.stringify(control)}\nid:${control.streamNextOffset}\n\n`;
}

export function errorEvent(message: string): string {
  return `event: error\ndata:${message.replace(/[\r\n]+/g, " ")}\n\n`;
}

export const HEARTBEAT = ": keep-alive\n\n";
