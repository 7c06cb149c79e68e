import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@chaind/core/logger";
import type { Request } from "@chaind/proto/tendermint/abci/types_pb";
import { afterEach, describe, expect, it } from "vitest";
import { abciFrame } from "../../../node/src/abci/abci-frames.js";
import { type AbciAnswer, AbciServer } from "../../../node/src/abci/abci-server.js";
import { abciClient as client } from "../helpers/abci-client.js";

/** A stand-in for the App (this test is about the socket protocol): answers Info with the order it was asked. */
class CountingHandler {
  asked = 0;
  async handle(request: Request): Promise<AbciAnswer> {
    if (request.value.case !== "info") throw new Error(`no ${request.value.case} here`);
    // Yields first: answers must still come back in request order.
    await new Promise((r) => setTimeout(r, Math.random() * 5));
    return {
      case: "info",
      value: { lastBlockHeight: BigInt(++this.asked), data: request.value.value.version },
    };
  }
}

describe("the ABCI socket server", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function serve(address = "tcp://127.0.0.1:0") {
    const handler = new CountingHandler();
    const server = await AbciServer.listen({ address, maxFrameBytes: 1024 }, handler, silentLogger);
    cleanups.push(() => server.close());
    return server;
  }

  it("answers pipelined requests in order, one frame split across writes and many frames in one", async () => {
    const server = await serve();
    const c = await client(server.address);
    cleanups.push(() => void c.socket.destroy());
    const info = (v: string) => c.request({ case: "info", value: { version: v } } as never);
    const all = Buffer.concat([
      c.request({ case: "echo", value: { message: "hello" } } as never),
      ...["a", "b", "c", "d", "e"].map(info),
      c.request({ case: "flush", value: {} } as never),
    ]);
    // One byte at a time for the first 9 bytes, the rest at once.
    for (let i = 0; i < 9; i++) c.socket.write(all.subarray(i, i + 1));
    c.socket.write(all.subarray(9));
    await c.until(() => c.responses.length === 7);
    expect(c.responses.map((r) => r.value.case)).toEqual([
      "echo",
      "info",
      "info",
      "info",
      "info",
      "info",
      "flush",
    ]);
    expect(c.responses[0].value.value).toMatchObject({ message: "hello" });
    expect(c.responses.slice(1, 6).map((r) => (r.value.value as { data: string }).data)).toEqual([
      "a",
      "b",
      "c",
      "d",
      "e",
    ]);
  });

  it("bytes that are no Request, an unknown request, an App error and a frame over the limit: an exception, the connection closed, the server goes on", async () => {
    const dir = mkdtempSync(join(tmpdir(), "abci-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const server = await serve(`unix://${join(dir, "app.sock")}`);
    const cases: [Buffer | ((c: Awaited<ReturnType<typeof client>>) => Buffer), RegExp][] = [
      [abciFrame(Uint8Array.of(0x0a, 0xff, 0xff)), /^cannot decode ABCI request/],
      [abciFrame(new Uint8Array()), /^unknown ABCI request$/],
      [(c) => c.request({ case: "commit", value: {} } as never), /^commit: no commit here$/],
      [Buffer.from([0x80, 0x80, 0x10]), /^an ABCI message of 262144 bytes is over the 1024 allowed$/],
      [Buffer.from(new Array(11).fill(0xff)), /^an ABCI message length is not a varint$/],
    ];
    for (const [bytes, error] of cases) {
      const c = await client(server.address);
      c.socket.write(typeof bytes === "function" ? bytes(c) : bytes);
      await c.until(() => c.closed());
      expect(c.closed()).toBe(true);
      expect(c.responses).toHaveLength(1);
      expect(c.responses[0].value.case).toBe("exception");
      expect((c.responses[0].value.value as { error: string }).error).toMatch(error);
    }
    // Still serving: a new connection is answered.
    const c = await client(server.address);
    cleanups.push(() => void c.socket.destroy());
    c.socket.write(c.request({ case: "info", value: { version: "after" } } as never));
    await c.until(() => c.responses.length === 1);
    expect(c.responses[0].value.case).toBe("info");
  });
});
