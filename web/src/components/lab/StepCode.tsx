// "This step in code": the ursa-client calls a user writes for a lab step, from the lab's code
// table (state/labCode.ts), folded away until asked for.
export function StepCode({ code, label = "This step in code" }: { code?: string; label?: string }) {
  if (!code) return null;
  return (
    <details class="step-code" data-testid="step-code">
      <summary>{label}</summary>
      <pre class="mono">
        <code>{code}</code>
      </pre>
    </details>
  );
}
