// Copies text to the clipboard, falling back to a hidden textarea where the async
// clipboard API is unavailable (plain http on a non-localhost host is not a secure context).
import { useState } from "preact/hooks";

export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.style.position = "fixed";
    ta.style.opacity = "0";
    document.body.appendChild(ta);
    ta.select();
    const ok = document.execCommand("copy");
    ta.remove();
    return ok;
  }
}

export function CopyButton({ text, label, class: cls = "small" }: { text: () => string; label: string; class?: string }) {
  const [state, setState] = useState<"idle" | "done" | "failed">("idle");
  const onClick = async () => {
    setState((await copyText(text())) ? "done" : "failed");
    setTimeout(() => setState("idle"), 1500);
  };
  return (
    <button type="button" class={cls} onClick={onClick}>
      {state === "done" ? "Copied" : state === "failed" ? "Copy failed" : label}
    </button>
  );
}
