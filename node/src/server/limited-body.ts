import type { IncomingMessage } from "node:http";

/**
 * Reads a request body of at most `max` bytes as text. Past the limit it fails at once with `tooLarge()` but
 * keeps draining what the client still sends (discarding it): leaving the stream unread would reset the
 * connection, and the client would see that instead of the 413 answer.
 */
export function readLimitedBody(req: IncomingMessage, max: number, tooLarge: () => Error): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > max) {
        over = true;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.once("error", reject);
    req.once("end", () => {
      if (!over) resolve(Buffer.concat(chunks).toString("utf8"));
    });
  });
}
