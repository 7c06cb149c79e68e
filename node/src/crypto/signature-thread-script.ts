import { builtThreadScript, type ThreadScript } from "@chaind/core/thread-script";

/** The code of the signature thread (signature-thread.ts). */
export const SIGNATURE_THREAD_SCRIPT: ThreadScript = builtThreadScript(import.meta.url, "signature-thread");
