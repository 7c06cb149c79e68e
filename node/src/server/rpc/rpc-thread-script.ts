const fromSources = import.meta.url.endsWith(".ts");

/**
 * The code of the RPC's HTTP thread: rpc-http-thread.js beside this file in the build. Run from the TypeScript
 * sources (the tests), the thread runs that file's build, which `npm test` makes first, without the `source`
 * export condition that would point its imports back at TypeScript. A release bundle replaces this module with
 * one holding the thread's own bundle as text (scripts/release.ts).
 */
export const RPC_THREAD_SCRIPT: { url: URL; code?: string; execArgv?: string[] } = fromSources
  ? {
      url: new URL("../../../dist/server/rpc/rpc-http-thread.js", import.meta.url),
      execArgv: process.execArgv.filter((a, i, all) => a !== "--conditions" && all[i - 1] !== "--conditions"),
    }
  : { url: new URL("./rpc-http-thread.js", import.meta.url) };
