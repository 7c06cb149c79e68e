/**
 * A fetch answer's body read whole, or refused as soon as it passes `maxBytes`: whoever answers on a port a
 * client asks cannot fill its memory.
 */
export async function readLimitedResponse(res: Response, maxBytes: number): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > maxBytes) {
      await res.body.cancel().catch(() => {});
      throw new Error(`answer larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
