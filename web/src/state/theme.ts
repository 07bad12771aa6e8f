// Light and dark themes. By default the console follows the system's prefers-color-scheme, live;
// the theme control overrides it and is remembered in this browser. The resolved theme is written to
// <html data-theme>, which the colour tokens (styles/tokens.css) key on.
import { computed, effect, signal } from "@preact/signals";

export type ThemeChoice = "system" | "light" | "dark";
const KEY = "ursa.theme";
const CHOICES: ThemeChoice[] = ["system", "light", "dark"];

function stored(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY);
    return CHOICES.includes(v as ThemeChoice) ? (v as ThemeChoice) : "system";
  } catch {
    return "system";
  }
}

const media = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null;
const systemDark = signal(media?.matches ?? false);
media?.addEventListener("change", (e) => (systemDark.value = e.matches));

export const themeChoice = signal<ThemeChoice>(typeof localStorage === "undefined" ? "system" : stored());
export const theme = computed<"light" | "dark">(() => (themeChoice.value === "system" ? (systemDark.value ? "dark" : "light") : themeChoice.value));

export function chooseTheme(c: ThemeChoice): void {
  themeChoice.value = c;
  try {
    if (c === "system") localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, c);
  } catch {
    // Storage refused (private mode): the choice lasts for this page.
  }
}

if (typeof document !== "undefined") effect(() => void (document.documentElement.dataset.theme = theme.value));
