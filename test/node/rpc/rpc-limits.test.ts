import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@chaind/core/logger";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { HomeLayout } from "../../../node/src/config/home-layout.js";
import { defaultNodeConfig, readNodeConfig, renderConfigToml } from "../../../node/src/config/node-config.js";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { GenesisAppState } from "../../../node/src/server/rpc/genesis-app-state.js";
import {
  GENESIS_CHUNK_BYTES,
  type GenesisChunk,
  GenesisChunks,
} from "../../../node/src/server/rpc/genesis-chunks.js";
import {
  DEFAULT_RPC_MAX_BATCH_SIZE,
  DEFAULT_RPC_MAX_RESPONSE_BYTES,
  JsonRpcServer,
  type RpcMethod,
} from "../../../node/src/server/rpc/json-rpc-server.js";
import { startRpcServer } from "../../../node/src/server/rpc/rpc-server.js";
import { floodUnread, readPipelined } from "../helpers/pipelining-client.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked field by field below
type Json = any;

const alice = testAccount("alice");

const post = async (address: string, body: unknown): Promise<{ status: number; json: Json }> => {
  const res = await fetch(address, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
};
const request = (id: number, method: string, params: unknown = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

describe("JSON-RPC batch and answer limits", () => {
  let server: JsonRpcServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const start = async (
    methods: Map<string, RpcMethod>,
    limits: {
      maxBatchSize?: number;
      maxResponseBytes?: number;
      writeTimeoutMs?: number;
      largeAnswers?: { running: number; waiting: number };
    } = {},
  ) => {
    server = await JsonRpcServer.start(
      { host: "127.0.0.1", port: 0, maxBodyBytes: 1_000_000, readTimeoutMs: 10_000, ...limits },
      methods,
      { logger: silentLogger },
    );
    return server.address;
  };

  it("declares max_request_batch_size (10, as CometBFT 1.x) and max_response_bytes in config.toml", () => {
    const d = defaultNodeConfig("n");
    expect(d.rpc.maxRequestBatchSize).toBe(10);
    expect(d.rpc.maxRequestBatchSize).toBe(DEFAULT_RPC_MAX_BATCH_SIZE);
    expect(d.rpc.maxResponseBytes).toBe(DEFAULT_RPC_MAX_RESPONSE_BYTES);
    const text = renderConfigToml({
      ...d,
      rpc: { ...d.rpc, maxRequestBatchSize: 3, maxResponseBytes: 5000 },
    });
    expect(text).toContain("max_request_batch_size = 3\n");
    expect(text).toContain("max_response_bytes = 5000\n");
    const home = makeTestHome();
    try {
      const file = new HomeLayout(home.home).configToml;
      writeFileSync(file, text);
      expect(readNodeConfig(file).rpc).toMatchObject({ maxRequestBatchSize: 3, maxResponseBytes: 5000 });
      writeFileSync(file, text.replace("max_request_batch_size = 3", "max_request_batch_size = -1"));
      expect(() => readNodeConfig(file)).toThrow(
        `${file}: rpc.max_request_batch_size: expected a whole number ≥ 0, got -1`,
      );
    } finally {
      home.cleanup();
    }
  });

  it("fails to start with Node's listen error when the port is taken, and frees its port on close", async () => {
    const first = await start(new Map());
    const port = Number(new URL(first).port);
    await expect(
      JsonRpcServer.start({ host: "127.0.0.1", port, maxBodyBytes: 1000, readTimeoutMs: 1000 }, new Map(), {
        logger: silentLogger,
      }),
    ).rejects.toThrow(/EADDRINUSE/);
    await server!.close();
    server = await JsonRpcServer.start(
      { host: "127.0.0.1", port, maxBodyBytes: 1000, readTimeoutMs: 1000 },
      new Map(),
      { logger: silentLogger },
    );
    expect(server.address).toBe(first);
  });

  it("runs a batch's requests one after another, in order, never side by side", async () => {
    const started: number[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const probe: RpcMethod = {
      params: ["n"],
      run: async (p) => {
        started.push(Number(p.n));
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        // Real work waits on I/O; give every other request the chance to start meanwhile.
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return { n: p.n };
      },
    };
    const address = await start(new Map([["probe", probe]]));
    const batch = Array.from({ length: 10 }, (_, i) => request(100 + i, "probe", { n: i }));
    const { json } = await post(address, batch);
    expect(json.map((r: Json) => r.id)).toEqual(batch.map((b) => b.id));
    expect(json.map((r: Json) => r.result.n)).toEqual(batch.map((_, i) => i));
    expect(started).toEqual(batch.map((_, i) => i));
    expect(mostInFlight).toBe(1);
  });

  it("answers a connection's pipelined requests one at a time, and starts none while a client leaves answers unread", async () => {
    let runs = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    const big: RpcMethod = {
      params: [],
      run: async () => {
        runs++;
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        return { blob: "x".repeat(1_000_000) };
      },
    };
    const address = await start(new Map([["big", big]]));
    const requests = 200;
    // A reading client gets every answer, in order, though the method waits on I/O.
    await readPipelined(address, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", 5);
    expect(mostInFlight).toBe(1);
    // A client that never reads: the node stops running its requests once the socket buffers are full, instead
    // of making an answer (1 MB here) for each of them.
    runs = 0;
    await floodUnread(address, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", requests, () => runs);
    expect(runs).toBeGreaterThan(0);
    expect(runs).toBeLessThan(requests / 4);
  });

  it("counts the write timeout from a pipelined request's turn, not from its arrival", async () => {
    const slow: RpcMethod = {
      params: [],
      run: async () => {
        await new Promise((r) => setTimeout(r, 300));
        return { ok: true };
      },
    };
    // Three requests of 300 ms each in one write, with a 500 ms write timeout: each fits its own deadline, though
    // the last is answered 900 ms after it arrived.
    const address = await start(new Map([["slow", slow]]), { writeTimeoutMs: 500 });
    const { hostname, port } = new URL(address);
    const socket = createConnection(Number(port), hostname);
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (d: string) => {
      text += d;
    });
    const closed = new Promise((r) => socket.once("close", r));
    socket.write(
      `${"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n".repeat(2)}GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    await closed;
    expect(text.split('"ok":true').length - 1).toBe(3);
  });

  it("runs nothing a connection queued once its client is gone, and stops a batch whose answer is closed", async () => {
    let runs = 0;
    const slow: RpcMethod = {
      params: [],
      run: async () => {
        runs++;
        await new Promise((r) => setTimeout(r, 200));
        return { ok: true };
      },
    };
    const address = await start(new Map([["slow", slow]]), { writeTimeoutMs: 300 });
    const { hostname, port } = new URL(address);
    const socket = createConnection(Number(port), hostname);
    socket.on("error", () => {});
    socket.write("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n".repeat(4));
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    await new Promise((r) => setTimeout(r, 800));
    expect(runs).toBe(1);
    // A batch the write timeout cuts after its second request: the other eight never run.
    runs = 0;
    await fetch(address, {
      method: "POST",
      body: JSON.stringify(Array.from({ length: 10 }, (_, i) => request(i, "slow"))),
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    expect(runs).toBe(2);
  });

  /** A large method that builds `steps` items 10 ms apart, checking between them whether its client left. */
  const longPage = (steps: number) => {
    const seen = { started: 0, built: 0, builtAfterGone: 0, stopped: 0 };
    const method: RpcMethod = {
      params: [],
      large: true,
      run: async (_p, call) => {
        seen.started++;
        try {
          for (let i = 0; i < steps; i++) {
            call.signal.throwIfAborted();
            await new Promise((r) => setTimeout(r, 10));
            if (call.signal.aborted) seen.builtAfterGone++;
            seen.built++;
          }
        } catch (e) {
          seen.stopped++;
          throw e;
        }
        return { built: steps };
      },
    };
    return { method, seen };
  };
  const sendAndLeave = (address: string, method: string) => {
    const { hostname, port } = new URL(address);
    const socket = createConnection(Number(port), hostname);
    socket.on("error", () => {});
    socket.write(`GET /${method} HTTP/1.1\r\nHost: x\r\n\r\n`);
    return socket;
  };
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  };

  it("tells a call its client left, so it stops, and drops a call waiting for its turn without running it", async () => {
    const { method, seen } = longPage(100);
    const address = await start(new Map([["page", method]]), { largeAnswers: { running: 1, waiting: 4 } });
    // The first runs; the second waits in line for it.
    const first = sendAndLeave(address, "page");
    await until(() => seen.started === 1);
    const second = sendAndLeave(address, "page");
    await new Promise((r) => setTimeout(r, 100));
    first.destroy();
    second.destroy();
    await until(() => seen.stopped === 1);
    await new Promise((r) => setTimeout(r, 200));
    // It stopped at its next step (the old server built all 100 for no one), and the one in line never ran.
    expect(seen.stopped).toBe(1);
    expect(seen.built).toBeLessThan(50);
    expect(seen.builtAfterGone).toBeLessThanOrEqual(1);
    expect(seen.started).toBe(1);
    // The gate is free again: a client that stays gets its whole answer.
    expect((await (await fetch(`${address}/page`)).json()) as Json).toMatchObject({ result: { built: 100 } });
  });

  it("stops a call once the write timeout has closed its answer", async () => {
    const { method, seen } = longPage(300);
    const address = await start(new Map([["page", method]]), { writeTimeoutMs: 300 });
    await fetch(`${address}/page`).catch(() => undefined);
    await until(() => seen.stopped === 1);
    // It worked until the timeout (about 30 steps), then stopped instead of building the other 270 for no one.
    expect(seen.stopped).toBe(1);
    expect(seen.built).toBeGreaterThan(5);
    expect(seen.built).toBeLessThan(150);
    expect(seen.builtAfterGone).toBeLessThanOrEqual(1);
  });

  it("runs a few large calls at once, lets a few wait, and refuses the rest naming the limit", async () => {
    const { method, seen } = longPage(20);
    const address = await start(new Map([["page", method]]), { largeAnswers: { running: 1, waiting: 2 } });
    const answers = await Promise.all(
      Array.from({ length: 5 }, async () => (await (await fetch(`${address}/page`)).json()) as Json),
    );
    expect(answers.filter((a) => a.result?.built === 20)).toHaveLength(3);
    const refused = answers.filter((a) => a.error);
    expect(refused).toHaveLength(2);
    for (const a of refused)
      expect(a.error).toMatchObject({
        code: -32603,
        data: "too many large requests in flight (1 running, 2 waiting); try again shortly",
      });
    expect(seen.started).toBe(3);
  });

  it("refuses a batch over the limit with one error naming it, running none of it; 0 lifts the limit", async () => {
    let ran = 0;
    const count: RpcMethod = { params: [], run: async () => ({ ran: ++ran }) };
    const address = await start(new Map([["count", count]]), { maxBatchSize: 3 });
    const { status, json } = await post(
      address,
      [1, 2, 3, 4].map((i) => request(i, "count")),
    );
    expect(status).toBe(200);
    expect(json).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: "Invalid Request",
        data: "batch request exceeds maximum (3) allowed number of requests",
      },
    });
    expect(ran).toBe(0);
    expect(
      (
        await post(
          address,
          [1, 2, 3].map((i) => request(i, "count")),
        )
      ).json,
    ).toHaveLength(3);
    await server?.close();
    const unlimited = await start(new Map([["count", count]]), { maxBatchSize: 0 });
    expect(
      (
        await post(
          unlimited,
          Array.from({ length: 50 }, (_, i) => request(i, "count")),
        )
      ).json,
    ).toHaveLength(50);
  });

  it("replaces an answer larger than max_response_bytes with an error, and stops a batch as soon as it passes", async () => {
    let ran = 0;
    const blob: RpcMethod = {
      params: ["size"],
      run: async (p) => {
        ran++;
        return { blob: "x".repeat(Number(p.size)) };
      },
    };
    const address = await start(new Map([["blob", blob]]), { maxResponseBytes: 10_000 });
    const fits = await post(address, request(1, "blob", { size: 9_000 }));
    expect(fits.json.result.blob).toHaveLength(9_000);
    const single = await post(address, request(2, "blob", { size: 20_000 }));
    expect(single.status).toBe(200);
    expect(single.json.id).toBe(2);
    expect(single.json.error.code).toBe(-32603);
    expect(single.json.error.data).toMatch(
      /^the answer of \d+ bytes exceeds max_response_bytes \(10000\); ask for less at a time$/,
    );
    const uri = await fetch(`${address}/blob?size=20000`);
    expect(uri.status).toBe(500);
    expect(((await uri.json()) as Json).error.data).toContain("exceeds max_response_bytes (10000)");

    ran = 0;
    const batch = Array.from({ length: 10 }, (_, i) => request(i, "blob", { size: 3_000 }));
    const { json } = await post(address, batch);
    expect(json.error.code).toBe(-32603);
    expect(json.error.data).toBe(
      "the answers to this batch exceed max_response_bytes (10000) at request 4 of 10; send fewer requests at a time",
    );
    // The requests after the one that passed the cap never ran.
    expect(ran).toBe(4);
  });
});

/** A node whose genesis.json `pad` made big, answering on its RPC server; `close` ends both and the home. */
async function paddedGenesisNode(pad: (doc: Json) => void, indent?: number) {
  const home = makeTestHome({ accounts: [{ account: alice, coins: "1000stake" }] });
  const file = new HomeLayout(home.home).genesisJson;
  const doc = JSON.parse(readFileSync(file, "utf8"));
  pad(doc);
  writeFileSync(file, JSON.stringify(doc, null, indent));
  const node = await ChainNode.open(
    { home: home.home, definition: TEST_DEFINITION },
    { logger: silentLogger },
  );
  const server = (await startRpcServer(node, { logger: silentLogger }))!;
  await node.producer.produce();
  const close = async () => {
    await server.close();
    await node.close();
    home.cleanup();
  };
  return { file, server, close };
}

describe("genesis and genesis_chunked", () => {
  let close: (() => Promise<void>) | undefined;
  let server: NodeServer;
  let file: string;

  const rpc = async (method: string, params: unknown = {}) =>
    (await post(server.address, request(7, method, params))).json;

  beforeAll(async () => {
    // Past CometBFT's 16 MiB chunk: a field the node ignores makes it big, as a genesis with many accounts would.
    ({ file, server, close } = await paddedGenesisNode((doc) => {
      doc.padding = "p".repeat(GENESIS_CHUNK_BYTES + 1_000_000);
    }, 2));
  });
  afterAll(() => close?.());

  it("refuses genesis over 16 MiB with CometBFT's pointer to genesis_chunked", async () => {
    const { error } = await rpc("genesis");
    expect(error).toEqual({
      code: -32603,
      message: "Internal error",
      data: "genesis response is large, please use the genesis_chunked API instead",
    });
  });

  it("serves genesis.json in 16 MiB base64 chunks that reassemble to the exact file", async () => {
    const bytes = readFileSync(file);
    const total = Math.ceil(bytes.length / GENESIS_CHUNK_BYTES);
    expect(total).toBe(2);
    const parts: Buffer[] = [];
    for (let i = 0; i < total; i++) {
      const { result } = await rpc("genesis_chunked", { chunk: String(i) });
      expect(result.chunk).toBe(String(i));
      expect(result.total).toBe(String(total));
      parts.push(Buffer.from(result.data, "base64"));
    }
    expect(parts[0].length).toBe(GENESIS_CHUNK_BYTES);
    expect(Buffer.compare(Buffer.concat(parts), bytes)).toBe(0);
    // The URI form and a positional param name the same chunk.
    const uri = (await (await fetch(`${server.address}/genesis_chunked?chunk=1`)).json()) as Json;
    expect(Buffer.from(uri.result.data, "base64").equals(parts[1])).toBe(true);
    expect((await rpc("genesis_chunked", [1])).result.data).toBe(uri.result.data);
  });

  it("answers a chunk out of range, or not a chunk number, with a clear error", async () => {
    expect((await rpc("genesis_chunked", { chunk: "2" })).error).toEqual({
      code: -32603,
      message: "Internal error",
      data: "there are 2 chunks, 2 is invalid; chunks are numbered 0 to 1",
    });
    expect((await rpc("genesis_chunked", { chunk: "-1" })).error).toMatchObject({
      code: -32602,
      data: "chunk must not be negative, got -1",
    });
    expect((await rpc("genesis_chunked", { chunk: "one" })).error).toMatchObject({
      code: -32602,
      data: 'chunk must be an integer, got "one"',
    });
  });
});

describe("GenesisChunks (small chunks, so the file stays small)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "genesis-chunks-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads one chunk at a time, lets 32 wait and refuses more, and never serves a stale chunk after an edit", async () => {
    const file = join(dir, "genesis.json");
    writeFileSync(file, "a".repeat(250));
    const chunks = new GenesisChunks(file, 100);
    expect(chunks.total()).toBe(3);
    const calls = Array.from({ length: 40 }, () => chunks.chunk(2));
    const settled = await Promise.allSettled(calls);
    const served = settled.filter((r) => r.status === "fulfilled");
    const refused = settled.filter((r) => r.status === "rejected");
    expect(served).toHaveLength(33);
    for (const r of served)
      expect((r as PromiseFulfilledResult<GenesisChunk>).value).toEqual({
        chunk: "2",
        total: "3",
        data: Buffer.from("a".repeat(50)).toString("base64"),
      });
    expect(refused).toHaveLength(7);
    expect((refused[0] as PromiseRejectedResult).reason.data).toBe(
      "too many genesis_chunked requests in flight; try again shortly",
    );
    // The line moved on: served again, and from the edited file, not from the chunk kept from before.
    writeFileSync(file, "b".repeat(260));
    expect((await chunks.chunk(2)).data).toBe(Buffer.from("b".repeat(60)).toString("base64"));
    expect(chunks.total()).toBe(3);
  });
});

describe("GenesisAppState", () => {
  it("parses genesis.json once for each version of the file and keeps the app state as text", async () => {
    const dir = mkdtempSync(join(tmpdir(), "genesis-app-state-"));
    try {
      const file = join(dir, "genesis.json");
      writeFileSync(file, JSON.stringify({ chain_id: "c", app_state: { bank: { n: 1 } } }));
      const time = 1_700_000_000;
      utimesSync(file, time, time);
      const state = new GenesisAppState(file);
      expect(await state.text()).toBe('{"bank":{"n":1}}');
      // The same size and time: the kept text answers, the file is not read again.
      writeFileSync(file, JSON.stringify({ chain_id: "c", app_state: { bank: { n: 2 } } }));
      utimesSync(file, time, time);
      expect(await state.text()).toBe('{"bank":{"n":1}}');
      // An edit the file system sees is read.
      utimesSync(file, time, time + 5);
      expect(await state.text()).toBe('{"bank":{"n":2}}');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("batches of genesis on a big (under 16 MiB) genesis", () => {
  let close: (() => Promise<void>) | undefined;
  let server: NodeServer;

  beforeAll(async () => {
    // 9 MB of app state the modules ignore: each genesis answer carries it.
    ({ server, close } = await paddedGenesisNode((doc) => {
      doc.app_state.padding = "p".repeat(9_000_000);
    }));
  });
  afterAll(() => close?.());

  it("answers one, and cuts a batch of them off at max_response_bytes instead of piling up answers", async () => {
    const one = await post(server.address, request(1, "genesis"));
    expect(one.json.result.genesis.app_state.padding).toHaveLength(9_000_000);
    const batch = Array.from({ length: 10 }, (_, i) => request(i, "genesis"));
    const { json } = await post(server.address, batch);
    expect(json.error.code).toBe(-32603);
    // 64 MiB holds seven 9 MB answers; the eighth passes it and ends the batch.
    expect(json.error.data).toBe(
      `the answers to this batch exceed max_response_bytes (${DEFAULT_RPC_MAX_RESPONSE_BYTES}) at request 8 of 10; send fewer requests at a time`,
    );
    // More than the limit: refused before any genesis is read.
    const many = await post(
      server.address,
      Array.from({ length: 11 }, (_, i) => request(i, "genesis")),
    );
    expect(many.json.error.data).toBe("batch request exceeds maximum (10) allowed number of requests");
  });
});
