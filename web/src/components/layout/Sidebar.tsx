// Navigation. The current page is marked with aria-current, not just colour. Wide screens show
// it as a sidebar; below 900 px it folds into a top bar whose Menu button opens it (styles/
// layout.css), and choosing a page closes it again.
import { useEffect, useState } from "preact/hooks";
import { route, links, type Route } from "../../state/router";
import { attempts } from "../../state/attempts";
import { Link } from "../common/Link";
import { ServerInfo } from "./ServerInfo";
import { ThemeToggle } from "./ThemeToggle";
import { AccessInfo } from "../access/AccessInfo";

const isBrowse = (r: Route) => r.name === "buckets" || r.name === "bucket" || r.name === "stream";

function NavLink({ href, active, children, count }: { href: string; active: boolean; children: string; count?: number }) {
  return (
    <Link href={href} aria-current={active ? "page" : undefined}>
      <span>{children}</span>
      {count !== undefined && <span class="nav-count">{count}</span>}
    </Link>
  );
}

function NavGroups({ r }: { r: Route }) {
  return (
    <div class="nav-groups">
      <div class="nav-group">
        <h2>Learn</h2>
        <NavLink href={links.start()} active={r.name === "start"}>
          Start
        </NavLink>
        <NavLink href={links.race()} active={r.name === "race"}>
          Race lab
        </NavLink>
        <NavLink href={links.outbox()} active={r.name === "outbox"}>
          Outbox lab
        </NavLink>
        <NavLink href={links.incarnation()} active={r.name === "incarnation"}>
          Incarnation lab
        </NavLink>
        <NavLink href={links.compaction()} active={r.name === "compaction"}>
          Compaction lab
        </NavLink>
        <NavLink href={links.glossary()} active={r.name === "glossary"}>
          Glossary
        </NavLink>
      </div>
      <div class="nav-group">
        <h2>Data</h2>
        <NavLink href={links.buckets()} active={isBrowse(r)}>
          Browse
        </NavLink>
        <NavLink href={links.server()} active={r.name === "server"}>
          Server
        </NavLink>
      </div>
      <div class="nav-group">
        <h2>Requests</h2>
        <NavLink href={links.compose()} active={r.name === "compose"}>
          Composer
        </NavLink>
        <NavLink href={links.timeline()} active={r.name === "timeline"} count={attempts.entries.value.length}>
          Timeline
        </NavLink>
      </div>
    </div>
  );
}

export function Sidebar() {
  const r = route.value;
  const [open, setOpen] = useState(false);
  // A page was chosen (or the URL changed some other way): the folded menu gets out of the way.
  useEffect(() => setOpen(false), [r]);
  return (
    <nav class="sidebar" aria-label="Console" data-menu-open={open} onKeyDown={(e) => e.key === "Escape" && open && setOpen(false)}>
      <div class="nav-bar">
        <Link href={links.start()} class="brand">
          <span class="mark" aria-hidden="true">
            u
          </span>
          <span>
            ursa <small>console</small>
          </span>
        </Link>
        <button type="button" class="menu-button" aria-expanded={open} aria-controls="nav-menu" onClick={() => setOpen(!open)}>
          <span aria-hidden="true">{open ? "✕" : "☰"}</span> Menu
        </button>
      </div>
      <div class="nav-menu" id="nav-menu">
        <NavGroups r={r} />
        <AccessInfo />
        <ServerInfo />
        <ThemeToggle />
      </div>
    </nav>
  );
}
