export function App() {
  return (
    <main>
      <h1>ursa</h1>
      <p>The console is being built. The protocol is served at /&#123;bucket&#125;/&#123;stream&#125;.</p>
    </main>
  );
}
