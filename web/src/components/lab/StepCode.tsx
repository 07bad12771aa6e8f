// "This step in code": the ursa-client calls a user writes for a lab step, from the lab's code
// table (state/labCode.ts), folded away until asked for.
export function StepCode({ code }: { code?: string }) {
  if (!code) return null;
  return (
    <details class="step-code" data-testid="step-code">
      <summary>This step in code</summary>
      <pre class="mono">
        <code>{code}</code>
      </pre>
    </details>
  );
}
