import { Worker, type WorkerOptions } from "node:worker_threads";

/** Where a worker thread's code is: a built file, or (in a release bundle) the thread's own bundle as text. */
export interface ThreadScript {
  url: URL;
  code?: string;
  execArgv?: string[];
}

/**
 * The thread `name`.js beside `moduleUrl` in the build. Run from TypeScript sources (the tests), the thread runs
 * that file's build under dist/, which `npm test` makes first, without the `source` export condition that would
 * point its imports back at TypeScript. A release bundle replaces the module naming its thread with one holding
 * the thread's bundle as text (scripts/release.ts).
 */
export function builtThreadScript(moduleUrl: string, name: string): ThreadScript {
  if (!moduleUrl.endsWith(".ts")) return { url: new URL(`./${name}.js`, moduleUrl) };
  const built = new URL(`./${name}.js`, moduleUrl).href.replace(/\/src\/(?!.*\/src\/)/, "/dist/");
  return {
    url: new URL(built),
    execArgv: process.execArgv.filter((a, i, all) => a !== "--conditions" && all[i - 1] !== "--conditions"),
  };
}

/** Starts the thread `script` names. */
export function spawnThread(script: ThreadScript, options: WorkerOptions = {}): Worker {
  return new Worker(script.code ?? script.url, {
    ...options,
    eval: script.code !== undefined,
    execArgv: script.execArgv,
  });
}
