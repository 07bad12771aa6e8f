// Classic hex dump: byte position, 16 bytes in two groups of 8, and printable ASCII.
export function hexLines(bytes: Uint8Array, start: number): { pos: number; hex: string; ascii: string }[] {
  const lines: { pos: number; hex: string; ascii: string }[] = [];
  for (let i = 0; i < bytes.length; i += 16) {
    const chunk = bytes.subarray(i, i + 16);
    const hex = Array.from(chunk, (b, j) => (j === 8 ? " " : "") + b.toString(16).padStart(2, "0")).join(" ");
    const ascii = Array.from(chunk, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : "·")).join("");
    lines.push({ pos: start + i, hex, ascii });
  }
  return lines;
}

export function HexDump({ bytes, start }: { bytes: Uint8Array; start: number }) {
  return (
    <pre class="hexdump" aria-label="Hex dump">
      {hexLines(bytes, start).map((l) => (
        <div key={l.pos}>
          <span class="pos">{String(l.pos).padStart(10, " ")}</span>
          {"  "}
          <span class="hex">{l.hex.padEnd(48, " ")}</span>
          {"  "}
          <span class="ascii">{l.ascii}</span>
        </div>
      ))}
    </pre>
  );
}
