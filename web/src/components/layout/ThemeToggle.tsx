// The theme as three labelled choices side by side, the one in force pressed: a control that
// says what it does before it is used. "System" follows prefers-color-scheme and says which
// theme that gives now.
import { chooseTheme, theme, themeChoice, type ThemeChoice } from "../../state/theme";

const CHOICES: { value: ThemeChoice; label: string }[] = [
  { value: "system", label: "System" },
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
];

export function ThemeToggle() {
  const choice = themeChoice.value;
  return (
    <div class="theme-toggle" role="group" aria-labelledby="theme-toggle-label">
      <span id="theme-toggle-label" class="theme-toggle-label">
        Theme
      </span>
      <div class="theme-toggle-choices">
        {CHOICES.map((c) => (
          <button
            key={c.value}
            type="button"
            class="small"
            aria-pressed={choice === c.value}
            data-theme-choice={c.value}
            title={c.value === "system" ? `Follow the system (${theme.value} now)` : `Always ${c.label.toLowerCase()}`}
            onClick={() => chooseTheme(c.value)}
          >
            {c.label}
          </button>
        ))}
      </div>
    </div>
  );
}
