// How the console renders a stream, decided like the server decides SSE encoding
// (spec §1.5): application/json is JSON, text/* is text, everything else is bytes.
export type ContentKind = "json" | "text" | "binary";

export function contentKind(contentType: string | undefined): ContentKind {
  const media = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (media === "application/json") return "json";
  if (media.startsWith("text/")) return "text";
  return "binary";
}
