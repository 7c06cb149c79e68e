import type { Agent } from "node:http";
import { silentLogger } from "@chaind/core/logger";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../node/src/chain/chain-node.js";
import type { NodeServer } from "../../node/src/server/node-server.js";
import { DEFAULT_RPC_MAX_BATCH_SIZE } from "../../node/src/server/rpc/json-rpc-server.js";
import { rpcMethods } from "../../node/src/server/rpc/rpc-methods.js";
import { startRpcServer } from "../../node/src/server/rpc/rpc-server.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../node/helpers/test-home.js";
import { fuzzAssert } from "./fuzz-assert.js";
import { exchange, type HttpAnswer, keepAliveAgent } from "./http-exchange.js";
import { jsFault } from "./js-fault-text.js";
import { soakSize } from "./soak-size.js";

const alice = testAccount("alice");
const RUNS = soakSize("rpc_fuzz", 150);

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers are checked field by field
type Json = any;

const CLIENT_ERRORS = [-32700, -32600, -32601, -32602];

/**
 * The -32603 answers CometBFT itself gives for a well-formed request about something the node does not have
 * (its handlers return every such error as "Internal error"); anything else under -32603 is a real fault.
 */
const COMET_INTERNAL_ANSWERS = [
  /must be less than or equal to the current blockchain height/,
  /^tx \([0-9A-F]{64}\) not found$/,
  /^there are \d+ chunks, \d+ is invalid; chunks are numbered 0 to \d+$/,
  // block_search and validators paging, broadcast_evidence: CometBFT answers these as -32603 too.
  /^failed to parse query: /,
  /^expected order_by to be either `asc` or `desc` or empty$/,
  /^page should be within \[1, \d+\] range, given -?\d+$/,
  /^no evidence was provided$/,
  /^failed to add evidence: /,
];

/** Parameter names every method takes, so random params often hit real ones. */
const PARAM_NAMES = [
  "height",
  "hash",
  "tx",
  "path",
  "data",
  "prove",
  "query",
  "page",
  "per_page",
  "order_by",
  "minHeight",
  "maxHeight",
  "chunk",
];

const paramValue = fc.oneof(
  fc.constantFrom(
    "",
    "0",
    "1",
    "-1",
    "3",
    "99",
    "1.5",
    "0x",
    "0xZZ",
    "0xABCD",
    "AB".repeat(32),
    "AA==",
    "====",
    "tx.height=1",
    "tx.height=",
    "message.sender='x' AND",
    "/sdk.bank.v1beta1.Query/Params",
    "/cosmos.auth.v1beta1.Query/Account",
    "/no/such/path",
    "asc",
    "desc",
    "sideways",
  ),
  fc.jsonValue({ maxDepth: 2 }),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 40 }),
  fc.nat({ max: 20_000 }).map((n) => "A".repeat(n)),
);

const params = fc.oneof(
  fc.constant(undefined),
  fc.dictionary(fc.oneof(fc.constantFrom(...PARAM_NAMES), fc.string({ maxLength: 8 })), paramValue, {
    maxKeys: 4,
  }),
  fc.array(paramValue, { maxLength: 5 }),
  fc.jsonValue({ maxDepth: 1 }),
);

const id = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 10 }),
  fc.constant(null),
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 1 }),
);

/** Idempotent methods only: a random broadcast could not be a valid tx anyway, but keep the chain still. */
function methodName(known: readonly string[]) {
  return fc.oneof(
    fc.constantFrom(...known),
    fc.constantFrom(
      "",
      "Health",
      "status ",
      "__proto__",
      "constructor",
      "toString",
      "dial_seeds",
      "subscribe",
    ),
    fc.string({ maxLength: 20 }),
    fc.jsonValue({ maxDepth: 1 }),
  );
}

function rpcRequest(known: readonly string[]) {
  return fc.record(
    {
      jsonrpc: fc.oneof(
        fc.constant("2.0"),
        fc.constant("2.0"),
        fc.constant("1.0"),
        fc.jsonValue({ maxDepth: 0 }),
      ),
      id,
      method: methodName(known),
      params,
    },
    { requiredKeys: [] },
  );
}

/** One JSON-RPC answer object: the id echoed, a result or an error with an allowed code and a message. */
function expectCleanResponse(r: Json, request: Json, what: string): void {
  expect(r?.jsonrpc, what).toBe("2.0");
  const reqId = request?.id;
  // As the id went over the wire: JSON has no -0, so an id of -0 comes back as 0.
  if (typeof reqId === "string" || typeof reqId === "number")
    expect(r.id, what).toBe(JSON.parse(JSON.stringify(reqId)));
  if (!("error" in r)) {
    expect("result" in r, what).toBe(true);
    return;
  }
  const { code, message, data } = r.error;
  expect(typeof message === "string" && message.length > 0, what).toBe(true);
  expect(jsFault(data), what).toBeUndefined();
  if (code === -32603) {
    expect(
      COMET_INTERNAL_ANSWERS.some((re) => re.test(data)),
      `${what}: unexpected internal error ${JSON.stringify(r.error)}`,
    ).toBe(true);
    return;
  }
  expect(CLIENT_ERRORS, `${what}: ${JSON.stringify(r.error)}`).toContain(code);
  expect(typeof data === "string" && data.length > 0, `${what}: error without detail`).toBe(true);
}

/** Failure messages with the request in them, cut so a 20 kB param does not flood the report. */
const short = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text);

function parsed(a: HttpAnswer, what: string): Json {
  expect(a.headers["content-type"], what).toBe("application/json");
  return JSON.parse(a.text);
}

describe("JSON-RPC under random bad input", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let server: NodeServer;
  let agent: Agent;
  let known: string[];
  let appHash: string;

  const post = (body: string) =>
    exchange(server.address, {
      method: "POST",
      path: "/",
      headers: { "content-type": "application/json" },
      body,
      agent,
    });
  const stillServing = async () => {
    const a = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "health" }));
    expect(JSON.parse(a.text)).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
  };

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "1000000stake" }],
      tuneNode: (c) => {
        c.rpc.maxBodyBytes = 100_000;
        c.rpc.timeoutBroadcastTxCommitMs = 1000;
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    server = (await startRpcServer(node, { logger: silentLogger })) as NodeServer;
    agent = keepAliveAgent();
    known = [...rpcMethods(node).keys()];
    for (let i = 0; i < 3; i++) await node.producer.produce();
    appHash = Buffer.from(node.store.latestAppHash).toString("hex");
  });
  afterAll(async () => {
    agent?.destroy();
    await server?.close();
    await node?.close();
    home?.cleanup();
  });

  it("answers random single requests with a result or a JSON-RPC error, never an unexplained -32603", async () => {
    await fuzzAssert(
      {
        suite: "JSON-RPC bad input",
        property:
          "answers random single requests with a result or a JSON-RPC error, never an unexplained -32603",
        runs: RUNS,
      },
      fc.asyncProperty(rpcRequest(known), async (request) => {
        const body = short(JSON.stringify(request));
        const a = await post(JSON.stringify(request));
        expect(a.status, body).toBe(200);
        expectCleanResponse(parsed(a, body), request, body);
      }),
    );
    await stillServing();
  });

  it("answers random batches element by element, and refuses batches over the limit whole", async () => {
    const element = fc.oneof(rpcRequest(known), fc.jsonValue({ maxDepth: 1 }));
    await fuzzAssert(
      {
        suite: "JSON-RPC bad input",
        property: "answers random batches element by element, and refuses batches over the limit whole",
        runs: RUNS,
      },
      fc.asyncProperty(fc.array(element, { maxLength: DEFAULT_RPC_MAX_BATCH_SIZE + 4 }), async (batch) => {
        const body = short(JSON.stringify(batch));
        const a = await post(JSON.stringify(batch));
        expect(a.status, body).toBe(200);
        const r = parsed(a, body);
        if (batch.length === 0) {
          expect(r.error.code, body).toBe(-32600);
          return;
        }
        if (batch.length > DEFAULT_RPC_MAX_BATCH_SIZE) {
          expect(r, body).toEqual({
            jsonrpc: "2.0",
            id: null,
            error: {
              code: -32600,
              message: "Invalid Request",
              data: `batch request exceeds maximum (${DEFAULT_RPC_MAX_BATCH_SIZE}) allowed number of requests`,
            },
          });
          return;
        }
        expect(Array.isArray(r) && r.length === batch.length, `${body} -> ${a.text}`).toBe(true);
        batch.forEach((req, i) => {
          expectCleanResponse(r[i], req, `${body} [${i}]`);
        });
      }),
    );
    await stillServing();
  });

  it("answers malformed JSON with -32700 and JSON that is no request with -32600", async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.json().map((j) => j.slice(0, Math.max(1, j.length - 1))),
      fc.jsonValue({ maxDepth: 2 }).map((j) => JSON.stringify(j) ?? "null"),
      fc.constantFrom("", "{", "[", "[]", "null", "{}", '{"jsonrpc":"2.0"', "\u0000", "\ufeff{}"),
    );
    await fuzzAssert(
      {
        suite: "JSON-RPC bad input",
        property: "answers malformed JSON with -32700 and JSON that is no request with -32600",
        runs: RUNS,
      },
      fc.asyncProperty(text, async (body) => {
        const a = await post(body);
        expect(a.status, body).toBe(200);
        const r = parsed(a, body);
        const answers = Array.isArray(r) ? r : [r];
        let valid = true;
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          valid = false;
        }
        if (!valid) expect(r.error?.code, `${body} -> ${a.text}`).toBe(-32700);
        for (const one of answers) {
          if (one.error) expect([...CLIENT_ERRORS, -32603], `${body} -> ${a.text}`).toContain(one.error.code);
          if (one.error?.code === -32603)
            expect(
              COMET_INTERNAL_ANSWERS.some((re) => re.test(one.error.data)),
              a.text,
            ).toBe(true);
        }
        if (valid && !Array.isArray(json)) expectCleanResponse(r, json, body);
      }),
    );
    await stillServing();
  });

  it("answers the URI form (GET /<method>?name=value) with JSON errors and the matching status", async () => {
    const value = fc.oneof(
      paramValue.map((v) => (typeof v === "string" ? v : (JSON.stringify(v) ?? ""))),
      paramValue.map((v) => `"${typeof v === "string" ? v : JSON.stringify(v)}"`),
    );
    const query = fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...PARAM_NAMES), fc.string({ maxLength: 6 })), value), {
        maxLength: 4,
      })
      .map((pairs) => new URLSearchParams(pairs).toString());
    const name = fc.oneof(
      fc.constantFrom(...known),
      fc.string({ maxLength: 12 }).map(encodeURIComponent),
      fc.constantFrom("broadcast_tx_sync/", "status/x", "%", "%zz"),
    );
    await fuzzAssert(
      {
        suite: "JSON-RPC bad input",
        property: "answers the URI form (GET /<method>?name=value) with JSON errors and the matching status",
        runs: RUNS,
      },
      fc.asyncProperty(name, query, async (m, q) => {
        const target = `/${m}${q ? `?${q}` : ""}`;
        const path = short(target);
        const a = await exchange(server.address, { method: "GET", path: target, agent });
        // A request line past Node's 16 kB header limit is refused before routing (431, as Go's 1 MB limit).
        if (a.status === 431) {
          expect(target.length, path).toBeGreaterThan(16_000);
          return;
        }
        const r = parsed(a, path);
        if (a.status === 200) {
          expect("result" in r || r.error, path).toBeTruthy();
          return;
        }
        expect(r.error, `${path} -> ${a.text}`).toBeDefined();
        expectCleanResponse(r, { id: -1 }, path);
        const status = r.error.code === -32601 ? 404 : r.error.code === -32603 ? 500 : 400;
        expect(a.status, `${path} -> ${a.text}`).toBe(status);
      }),
    );
    await stillServing();
  });

  it("abci_query: random request bytes to every query handler get a coded answer, never an internal fault", async () => {
    const paths = node.app.registrar.queryServices.flatMap((svc) =>
      svc.methods.flatMap((m) => [
        `/${svc.typeName}/${m.name}`,
        `/${svc.typeName.replace(/^sdk\./, "cosmos.")}/${m.name}`,
      ]),
    );
    await fuzzAssert(
      {
        suite: "JSON-RPC bad input",
        property:
          "abci_query: random request bytes to every query handler get a coded answer, never an internal fault",
        runs: RUNS * 2,
      },
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.uint8Array({ maxLength: 64 }),
        fc.constantFrom(0, 1, 2, 3, 99),
        async (path, data, height) => {
          const request = {
            jsonrpc: "2.0",
            id: 1,
            method: "abci_query",
            params: { path, data: Buffer.from(data).toString("hex"), height: String(height) },
          };
          const a = await post(JSON.stringify(request));
          const r = parsed(a, path);
          const what = `${path} ${Buffer.from(data).toString("hex")} @${height}: ${a.text.slice(0, 300)}`;
          expect(r.result?.response, what).toBeDefined();
          const { code, codespace, log } = r.result.response;
          if (code === 0) return;
          // codespace "undefined" / code 1 is what a JS exception turns into: a bug, not an answer.
          expect(codespace === "undefined" && code === 1, what).toBe(false);
          expect(log.length, what).toBeGreaterThan(0);
          expect(jsFault(log), what).toBeUndefined();
        },
      ),
    );
  });

  it("answers deeply nested JSON, huge batches and odd ids without falling over", async () => {
    const deep = await post(`${"[".repeat(40_000)}${"]".repeat(40_000)}`);
    expect(deep.status).toBe(200);
    expect(JSON.parse(deep.text)[0].error.code).toBe(-32600);
    // Refused past 1000 levels, with the request's id; a few levels are a method's params as usual.
    const deepParams = await post(
      `{"jsonrpc":"2.0","id":1,"method":"status","params":${"[".repeat(40_000)}${"]".repeat(40_000)}}`,
    );
    expect(JSON.parse(deepParams.text)).toMatchObject({
      id: 1,
      error: { code: -32600, data: "the request nests deeper than 1000 levels" },
    });
    const nested = await post(
      `{"jsonrpc":"2.0","id":2,"method":"status","params":{"a":${"[".repeat(900)}${"]".repeat(900)}}}`,
    );
    expect(JSON.parse(nested.text).result.node_info.network).toBe(home.chainId);
    // A huge batch (issue 20: 22,704 genesis calls in one request) is refused whole; a full one is answered.
    const batch = Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "genesis" }));
    const huge = JSON.parse((await post(JSON.stringify(batch))).text);
    expect(huge.error).toMatchObject({
      code: -32600,
      data: expect.stringContaining("batch request exceeds"),
    });
    const full = batch.slice(0, DEFAULT_RPC_MAX_BATCH_SIZE);
    const many = JSON.parse((await post(JSON.stringify(full))).text);
    expect(many.map((r: Json) => r.id)).toEqual(full.map((b) => b.id));
    expect(many.every((r: Json) => r.result.genesis.chain_id === home.chainId)).toBe(true);
    const ids = await post('{"jsonrpc":"2.0","id":{"a":1},"method":"health"}');
    expect(JSON.parse(ids.text)).toMatchObject({ jsonrpc: "2.0", id: null });
    await stillServing();
  });

  it("answers other HTTP methods with -32600 and keeps the chain where it was", async () => {
    for (const method of ["PUT", "DELETE", "PATCH", "OPTIONS"]) {
      const a = await exchange(server.address, { method, path: "/", agent });
      expect(a.status).toBe(405);
      expect(JSON.parse(a.text).error.code).toBe(-32600);
    }
    await stillServing();
    expect(Buffer.from(node.store.latestAppHash).toString("hex")).toBe(appHash);
    expect(node.mempool.size).toBe(0);
  });
});
