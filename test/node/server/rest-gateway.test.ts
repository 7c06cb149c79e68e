import { createConnection, type Socket } from "node:net";
import { silentLogger } from "@chaind/core/logger";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { sha256 } from "@noble/hashes/sha2.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { RestGateway } from "../../../node/src/server/rest/rest-gateway.js";
import { restRoutes } from "../../../node/src/server/rest/rest-routes.js";
import { queryBackend, startRestServer } from "../../../node/src/server/rest/rest-server.js";
import { floodUnread, readPipelined } from "../helpers/pipelining-client.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked field by field below
type Json = any;

const alice = testAccount("alice");
const bob = testAccount("bob");

describe("REST gateway", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let api: NodeServer;
  let devApi: NodeServer;
  let signer: TxSigner;

  const get = async (path: string, headers: Record<string, string> = {}, base = api.address) => {
    const res = await fetch(base + path, { headers: { "content-type": "application/json", ...headers } });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
  };
  const post = async (path: string, body: unknown, base = api.address) => {
    const res = await fetch(base + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const send = (amount: string) =>
    signer.sign([
      anyOf(MsgSendSchema, {
        fromAddress: alice.address,
        toAddress: bob.address,
        amount: [{ denom: "stake", amount }],
      }),
    ]);
  const broadcast = async (amount: string, mode = "BROADCAST_MODE_SYNC") => {
    const tx = await send(amount);
    const r = await post("/sdk/tx/v1beta1/txs", { tx_bytes: Buffer.from(tx).toString("base64"), mode });
    expect(r.status).toBe(200);
    return { tx, response: r.body.tx_response };
  };
  const produceTo = async (height: number) => {
    while (node.store.latestHeight < height) await node.producer.produce();
  };

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "1000000stake" }],
      tuneApp: (c) => {
        c.api.enable = true;
        c.api.rpcMaxBodyBytes = 4096;
        // Keep 3 states, prune every 10 blocks: at height 10 the earliest readable height is 8.
        c.pruning = "custom";
        c.pruningKeepRecent = 3;
        c.pruningInterval = 10;
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    api = (await startRestServer(node, { logger: silentLogger }))!;
    node.appConfig.api.enabledUnsafeCors = true;
    node.appConfig.api.swagger = true;
    devApi = (await startRestServer(node, { logger: silentLogger }))!;
    await produceTo(1);
    const acct = await get(`/sdk/auth/v1beta1/accounts/${alice.address}`);
    signer = new TxSigner(alice, BigInt(acct.body.account.account_number), home.chainId);
  });
  afterAll(async () => {
    await api?.close();
    await devApi?.close();
    await node?.close();
    home?.cleanup();
  });

  it("listens on loopback and answers protojson with snake_case names, int64 strings and defaults", async () => {
    expect(api.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const r = await get(`/sdk/bank/v1beta1/balances/${alice.address}`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(r.body.balances).toEqual([{ denom: "stake", amount: "1000000" }]);
    // No pagination given: the total is counted, as the SDK's paginator counts it for a limit of 0.
    expect(r.body.pagination).toEqual({ next_key: null, total: "1" });
    const plan = await get("/sdk/upgrade/v1beta1/current_plan");
    expect(plan.body).toEqual({ plan: null });
    const params = await get("/sdk/auth/v1beta1/params");
    expect(params.body.params.max_memo_characters).toMatch(/^\d+$/);
  });

  it("prints Any with @type in the namespace of the request path", async () => {
    const sdk = await get(`/sdk/auth/v1beta1/accounts/${alice.address}`);
    expect(sdk.body.account["@type"]).toBe("/sdk.auth.v1beta1.BaseAccount");
    expect(sdk.body.account.address).toBe(alice.address);
    const cosmos = await get(`/cosmos/auth/v1beta1/accounts/${alice.address}`);
    expect(cosmos.status).toBe(200);
    expect(cosmos.body.account["@type"]).toBe("/cosmos.auth.v1beta1.BaseAccount");
    expect(Object.keys(cosmos.body.account)[0]).toBe("@type");
    expect(cosmos.body.account.account_number).toBe(sdk.body.account.account_number);
    expect(cosmos.body.account.pub_key).toBeNull();
  });

  it("reads dotted, repeated and enum query parameters and ignores unknown ones", async () => {
    const page = await get("/sdk/auth/v1beta1/accounts?pagination.limit=1&pagination.count_total=true&x=1");
    expect(page.status).toBe(200);
    expect(page.body.accounts).toHaveLength(1);
    expect(page.body.pagination.next_key).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(Number(page.body.pagination.total)).toBeGreaterThan(1);
    for (const status of ["PROPOSAL_STATUS_VOTING_PERIOD", "2"])
      expect((await get(`/sdk/gov/v1/proposals?proposal_status=${status}`)).status).toBe(200);
    const badEnum = await get("/sdk/gov/v1/proposals?proposal_status=NOT_A_STATUS");
    expect(badEnum.status).toBe(400);
    expect(badEnum.body.code).toBe(3);
    expect(badEnum.body.message).toContain("NOT_A_STATUS");
    const badInt = await get("/sdk/auth/v1beta1/accounts?pagination.limit=ten");
    expect(badInt.status).toBe(400);
  });

  it("broadcasts (sync and async), simulates and looks up transactions", async () => {
    const simTx = await send("1");
    const sim = await post("/sdk/tx/v1beta1/simulate", { tx_bytes: Buffer.from(simTx).toString("base64") });
    expect(sim.status).toBe(200);
    expect(Number(sim.body.gas_info.gas_used)).toBeGreaterThan(0);
    // Simulation does not use up the sequence: sign the same tx again for real.
    (signer as unknown as { sequence: bigint }).sequence = 0n;
    const { tx, response } = await broadcast("100");
    const hash = Buffer.from(sha256(tx)).toString("hex").toUpperCase();
    expect(response).toMatchObject({ code: 0, txhash: hash });
    await produceTo(node.store.latestHeight + 1);
    const found = await get(`/sdk/tx/v1beta1/txs/${hash}`);
    expect(found.status).toBe(200);
    expect(found.body.tx_response.txhash).toBe(hash);
    expect(found.body.tx.body.messages[0]["@type"]).toBe("/sdk.bank.v1beta1.MsgSend");
    const asyncTx = await broadcast("5", "BROADCAST_MODE_ASYNC");
    expect(asyncTx.response.txhash).toMatch(/^[0-9A-F]{64}$/);
    // Async returns before CheckTx: make blocks until the tx is in one.
    for (let i = 0; i < 5; i++) {
      await produceTo(node.store.latestHeight + 1);
      if ((await get(`/sdk/tx/v1beta1/txs/${asyncTx.response.txhash}`)).status === 200) break;
    }
    const bobBal = await get(`/sdk/bank/v1beta1/balances/${bob.address}/by_denom?denom=stake`);
    expect(bobBal.body.balance).toEqual({ denom: "stake", amount: "105" });
    const missing = await get(`/sdk/tx/v1beta1/txs/${"AB".repeat(32)}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 5, details: [] });
  });

  it("answers client mistakes with grpc-gateway's statuses and error shape, never 500", async () => {
    const unknown = await get("/sdk/nothing/here");
    expect(unknown).toMatchObject({
      status: 501,
      body: { code: 12, message: "Not Implemented", details: [] },
    });
    const wrongMethod = await post("/sdk/bank/v1beta1/params", {});
    expect(wrongMethod.status).toBe(405);
    const badJson = await post("/sdk/tx/v1beta1/simulate", "{nope");
    expect(badJson.status).toBe(400);
    expect(badJson.body.message).toContain("not JSON");
    const notObject = await post("/sdk/tx/v1beta1/simulate", "[1]");
    expect(notObject.status).toBe(400);
    const huge = await post("/sdk/tx/v1beta1/simulate", { tx_bytes: "A".repeat(5000) });
    expect(huge.status).toBe(413);
    const vast = await post("/sdk/tx/v1beta1/simulate", { tx_bytes: "A".repeat(3_000_000) });
    expect(vast).toMatchObject({
      status: 413,
      body: { code: 8, message: "request body exceeds 4096 bytes" },
    });
    const emptyTx = await post("/sdk/tx/v1beta1/txs", { mode: "BROADCAST_MODE_SYNC" });
    expect(emptyTx.status).toBe(400);
    const badAddress = await get("/sdk/bank/v1beta1/balances/not-an-address");
    expect(badAddress.status).toBe(400);
    expect(badAddress.body.code).toBe(3);
    const noAccount = await get(`/sdk/auth/v1beta1/accounts/${testAccount("nobody").address}`);
    expect(noAccount.status).toBe(404);
    expect(noAccount.body.code).toBe(5);
  });

  it("answers from the state at the height header, with each bad height its own error", async () => {
    await produceTo(7);
    await broadcast("1000");
    await produceTo(8);
    const atEight = (await get(`/sdk/bank/v1beta1/balances/${bob.address}`)).body.balances;
    await broadcast("1000");
    await produceTo(10);
    expect(node.store.earliestHeight).toBe(8);

    const latest = await get(`/sdk/bank/v1beta1/balances/${bob.address}`);
    expect(latest.headers.get("x-sdk-block-height")).toBe("10");
    expect(latest.body.balances).toEqual([{ denom: "stake", amount: "2105" }]);
    for (const header of ["x-sdk-block-height", "x-cosmos-block-height"]) {
      const old = await get(`/sdk/bank/v1beta1/balances/${bob.address}`, { [header]: "8" });
      expect(old.status).toBe(200);
      expect(old.body.balances).toEqual(atEight);
      expect(old.body.balances).toEqual([{ denom: "stake", amount: "1105" }]);
      expect(old.headers.get("x-sdk-block-height")).toBe("8");
      expect(old.headers.get("x-cosmos-block-height")).toBe("8");
    }
    const cosmosBad = await get(`/sdk/bank/v1beta1/balances/${bob.address}`, {
      "x-cosmos-block-height": "x",
    });
    expect(cosmosBad.body.message).toContain('invalid height header "x-cosmos-block-height"');
    const zero = await get(`/sdk/bank/v1beta1/balances/${bob.address}`, { "x-sdk-block-height": "0" });
    expect(zero.headers.get("x-sdk-block-height")).toBe("10");

    const cases: [string, RegExp][] = [
      ["abc", /^invalid height header/],
      ["1.5", /^invalid height header/],
      ["-1", /^cannot query with height < 0; please provide a valid height/],
      ["11", /^cannot query with height in the future; please provide a valid height/],
      ["7", /^failed to load state at height 7; .* \(latest height: 10\)/],
      ["1", /^failed to load state at height 1; .* \(latest height: 10\)/],
    ];
    for (const [value, message] of cases) {
      const r = await get(`/sdk/bank/v1beta1/balances/${bob.address}`, { "x-sdk-block-height": value });
      expect(r.status, value).toBe(400);
      expect(r.body.code, value).toBe(3);
      expect(r.body.message, value).toMatch(message);
      expect(r.body.balances, value).toBeUndefined();
    }
  });

  it("keeps CORS and Swagger off by default and turns them on with their switches", async () => {
    const plain = await fetch(`${api.address}/sdk/bank/v1beta1/params`, {
      headers: { origin: "http://x.test" },
    });
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
    const preflightOff = await fetch(`${api.address}/sdk/bank/v1beta1/params`, {
      method: "OPTIONS",
      headers: { origin: "http://x.test", "access-control-request-method": "GET" },
    });
    expect(preflightOff.headers.get("access-control-allow-origin")).toBeNull();
    expect((await fetch(`${api.address}/swagger`)).status).toBe(404);
    expect((await fetch(`${api.address}/swagger/openapi.json`)).status).toBe(404);

    const preflight = await fetch(`${devApi.address}/sdk/bank/v1beta1/params`, {
      method: "OPTIONS",
      headers: {
        origin: "http://x.test",
        "access-control-request-method": "GET",
        "access-control-request-headers": "x-sdk-block-height",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("http://x.test");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("x-sdk-block-height");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("GET");
    const cors = await fetch(`${devApi.address}/sdk/bank/v1beta1/params`, {
      headers: { origin: "http://x.test" },
    });
    expect(cors.headers.get("access-control-allow-origin")).toBe("http://x.test");
    expect(cors.headers.get("access-control-expose-headers")).toContain("x-sdk-block-height");

    for (const path of ["/swagger", "/swagger/"]) {
      const page = await fetch(devApi.address + path);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("swagger-ui-bundle.js");
    }
    const doc = (await (await fetch(`${devApi.address}/swagger/openapi.json`)).json()) as Json;
    expect(doc.openapi).toBe("3.0.3");
    expect(doc.paths["/sdk/upgrade/v1beta1/current_plan"].get.summary).toBe("CurrentPlan");
    expect(doc.paths["/sdk/tx/v1beta1/txs"].post.requestBody).toBeDefined();
    const bundle = await fetch(`${devApi.address}/swagger/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toContain("javascript");
    expect((await fetch(`${devApi.address}/swagger/../package.json`)).status).not.toBe(200);
  });
});

describe("REST gateway limits", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let gateway: RestGateway;

  beforeAll(async () => {
    home = makeTestHome();
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    await node.producer.produce();
    gateway = await RestGateway.start(
      {
        host: "127.0.0.1",
        port: 0,
        maxOpenConnections: 1,
        readTimeoutMs: 400,
        writeTimeoutMs: 0,
        maxBodyBytes: 1000,
        cors: false,
      },
      restRoutes(node.app.registrar.queryServices),
      { backend: queryBackend(node), logger: silentLogger, metrics: null },
    );
  });
  afterAll(async () => {
    await gateway?.close();
    await node?.close();
    home?.cleanup();
  });

  const port = () => Number(new URL(gateway.address).port);
  const connect = () =>
    new Promise<Socket>((resolve, reject) => {
      const s = createConnection(port(), "127.0.0.1", () => resolve(s));
      s.once("error", reject);
    });
  /** Everything the server sends until it closes the connection. */
  const untilClosed = (s: Socket) =>
    new Promise<string>((resolve) => {
      let text = "";
      s.setEncoding("utf8");
      s.on("data", (d: string) => {
        text += d;
      });
      s.on("close", () => resolve(text));
    });

  it("closes a request that is not sent within the read timeout", async () => {
    const s = await connect();
    const closed = untilClosed(s);
    s.write("GET /sdk/bank/v1beta1/params HTTP/1.1\r\nHost: x\r\n");
    const started = Date.now();
    expect(await closed).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("refuses connections beyond max-open-connections until one closes", async () => {
    const held = await connect();
    const extra = await connect();
    // The server drops the extra connection at once.
    expect(await untilClosed(extra)).toBe("");
    held.destroy();
    // The server sees the close a moment later; then a new connection is served.
    let answer = "";
    for (let i = 0; i < 40 && !answer; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const s = await connect();
      const closed = untilClosed(s);
      s.write("GET /sdk/bank/v1beta1/params HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      answer = await closed;
    }
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
  });

  it("answers 504 when the answer takes longer than the write timeout", async () => {
    const real = queryBackend(node);
    // The real query router, answering 300 ms late.
    const slow = {
      ...real,
      heights: node.store,
      query: async (path: string, data: Uint8Array, height: number) => {
        await new Promise((r) => setTimeout(r, 300));
        return real.query(path, data, height);
      },
    };
    const timed = await RestGateway.start(
      {
        host: "127.0.0.1",
        port: 0,
        maxOpenConnections: 0,
        readTimeoutMs: 0,
        writeTimeoutMs: 100,
        maxBodyBytes: 1000,
        cors: false,
      },
      restRoutes(node.app.registrar.queryServices),
      { backend: slow, logger: silentLogger, metrics: null },
    );
    try {
      const res = await fetch(`${timed.address}/sdk/bank/v1beta1/params`);
      expect(res.status).toBe(504);
      expect(await res.json()).toMatchObject({ code: 4, details: [] });
    } finally {
      await timed.close();
    }
  });

  it("runs a connection's pipelined requests one at a time, and none past what a client that never reads leaves unread", async () => {
    const real = queryBackend(node);
    let runs = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    let slow = true;
    // The real query router, counting its runs and, at first, waiting on I/O as a store read does.
    const counted = {
      ...real,
      heights: node.store,
      query: async (path: string, data: Uint8Array, height: number) => {
        runs++;
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        if (slow) await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        return real.query(path, data, height);
      },
    };
    const gw = await RestGateway.start(
      {
        host: "127.0.0.1",
        port: 0,
        maxOpenConnections: 0,
        readTimeoutMs: 0,
        writeTimeoutMs: 0,
        maxBodyBytes: 1000,
        cors: false,
      },
      restRoutes(node.app.registrar.queryServices),
      { backend: counted, logger: silentLogger, metrics: null },
    );
    const request = "GET /sdk/bank/v1beta1/params HTTP/1.1\r\nHost: x\r\n\r\n";
    try {
      await readPipelined(gw.address, request, 5);
      expect(mostInFlight).toBe(1);

      // A hundred thousand requests in one write, never read: the gateway stops once the socket's buffers are
      // full (some thousands of small answers) instead of making and holding an answer for each.
      slow = false;
      runs = 0;
      const requests = 100_000;
      await floodUnread(gw.address, request, requests, () => runs);
      expect(runs).toBeGreaterThan(0);
      expect(runs).toBeLessThan(requests / 4);
    } finally {
      await gw.close();
    }
  });
});
