// An ordinary <a href> (so middle-click, copy link and keyboard all work) that navigates
// inside the single-page app on a plain left click.
import type { ComponentChildren } from "preact";
import { navigate } from "../../state/router";

interface Props {
  href: string;
  children: ComponentChildren;
  class?: string;
  title?: string;
  "aria-current"?: "page";
}

export function Link({ href, children, ...rest }: Props) {
  const onClick = (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
