// A modal dialog on the native <dialog> element: the browser traps focus inside it, Escape
// closes it, and focus returns to what opened it. Open while `open` is true.
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

export function Dialog(props: { open: boolean; title: string; onClose: () => void; children: ComponentChildren; wide?: boolean; testId?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  const titleId = `dlg-${props.title.replace(/\W+/g, "-").toLowerCase()}`;
  return (
    <dialog ref={ref} class={`dialog ${props.wide ? "wide" : ""}`} aria-labelledby={titleId} onClose={props.onClose} data-testid={props.testId}>
      {props.open && (
        <>
          <header>
            <h2 id={titleId}>{props.title}</h2>
            <button type="button" class="small" aria-label="Close" onClick={props.onClose}>
              ×
            </button>
          </header>
          <div class="dialog-body">{props.children}</div>
        </>
      )}
    </dialog>
  );
}
