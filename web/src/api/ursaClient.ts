// The console runs its labs and the composer's retry on ursa-client (clients/ts/), the package a
// user imports once the labs have taught its recipes, so what the console shows is that code at
// work. One import path for the whole console; Vite and tsc read the package's TypeScript source.
export * from "../../../clients/ts/src/index.ts";
