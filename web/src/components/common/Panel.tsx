import type { ComponentChildren } from "preact";

export function Panel(props: { title: ComponentChildren; actions?: ComponentChildren; children: ComponentChildren; flush?: boolean; id?: string; class?: string }) {
  const headingId = props.id ? `${props.id}-title` : undefined;
  return (
    <section class={`panel ${props.class ?? ""}`} id={props.id} aria-labelledby={headingId}>
      <header>
        <h2 id={headingId}>{props.title}</h2>
        {props.actions && <div class="actions">{props.actions}</div>}
      </header>
      <div class={props.flush ? "body flush" : "body"}>{props.children}</div>
    </section>
  );
}
