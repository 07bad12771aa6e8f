// Navigation. The current page is marked with aria-current, not just colour.
import { route, links, type Route } from "../../state/router";
import { attempts } from "../../state/attempts";
import { chooseTheme, nextThemeChoice, theme, themeChoice } from "../../state/theme";
import { Link } from "../common/Link";
import { ServerInfo } from "./ServerInfo";
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

const THEME_LABEL = { system: "System", light: "Light", dark: "Dark" } as const;

function ThemeToggle() {
  const choice = themeChoice.value;
  const next = nextThemeChoice(choice);
  return (
    <button type="button" class="small theme-toggle" onClick={() => chooseTheme(next)} data-theme-choice={choice} title={`Switch to ${THEME_LABEL[next].toLowerCase()}`}>
      Theme: {THEME_LABEL[choice]}
      {choice === "system" ? ` (${theme.value})` : ""}
    </button>
  );
}

export function Sidebar() {
  const r = route.value;
  return (
    <nav class="sidebar" aria-label="Console">
      <Link href={links.start()} class="brand">
        <span class="mark" aria-hidden="true">
          u
        </span>
        <span>
          ursa <small>console</small>
        </span>
      </Link>
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
      <AccessInfo />
      <ServerInfo />
      <ThemeToggle />
    </nav>
  );
}
