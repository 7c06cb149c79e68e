import { builtThreadScript, type ThreadScript } from "@chaind/core/thread-script";

/** The code of the RPC's HTTP thread (rpc-http-thread.ts). */
export const RPC_THREAD_SCRIPT: ThreadScript = builtThreadScript(import.meta.url, "rpc-http-thread");
