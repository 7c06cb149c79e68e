import type { ServerResponse } from "node:http";
import { createConnection, createServer, type Socket } from "node:net";
import { type HttpHandler, HttpListener, type HttpListenerOptions } from "@chaind/core/http-listener";
import { afterEach, describe, expect, it } from "vitest";

/** Whether this machine has an IPv6 loopback (containers may switch it off). */
const ipv6 = await new Promise<boolean>((resolve) => {
  const probe = createServer();
  probe.once("error", () => resolve(false));
  probe.listen(0, "::1", () => probe.close(() => resolve(true)));
});
if (!ipv6) console.log("http-listener: no ::1 on this machine, the IPv6 case is skipped");

/** A raw connection to a listener, with everything it received and whether the server closed it. */
function connect(address: string): { socket: Socket; text: () => string; closed: Promise<void> } {
  const { hostname, port } = new URL(address);
  const socket = createConnection(Number(port), hostname.replace(/^\[|\]$/g, ""));
  let text = "";
  socket.setEncoding("latin1");
  socket.on("data", (d: string) => {
    text += d;
  });
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return { socket, text: () => text, closed };
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: t\r\n\r\n`;

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 10));
}

describe("HttpListener", () => {
  const started: HttpListener[] = [];
  const errors: { msg: string; ctx?: Record<string, unknown> }[] = [];
  const logger = { error: (msg: string, ctx?: Record<string, unknown>) => errors.push({ msg, ctx }) };
  const start = async (opts: Partial<HttpListenerOptions>, handle: HttpHandler) => {
    const listener = await HttpListener.start({ host: "127.0.0.1", port: 0, name: "test", ...opts }, handle, {
      logger,
    });
    started.push(listener);
    return listener;
  };
  const answer: HttpHandler = async (req, res) => {
    req.resume();
    res.end(`answer to ${req.url}`);
  };
  afterEach(async () => {
    await Promise.all(started.splice(0).map((l) => l.close()));
    errors.length = 0;
  });

  it("listens where it is told and reports the address as a URL", async () => {
    const l = await start({}, answer);
    expect(l.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(`${l.address}/x`)).text()).toBe("answer to /x");
  });

  it.skipIf(!ipv6)("puts an IPv6 host in brackets", async () => {
    const l = await start({ host: "::1" }, answer);
    expect(l.address).toMatch(/^http:\/\/\[::1\]:\d+$/);
    expect(await (await fetch(`${l.address}/y`)).text()).toBe("answer to /y");
  });

  it("rejects with Node's error when the port is taken", async () => {
    const first = await start({}, answer);
    const port = Number(new URL(first.address).port);
    await expect(start({ port }, answer)).rejects.toMatchObject({ code: "EADDRINUSE" });
    expect(await (await fetch(`${first.address}/z`)).text()).toBe("answer to /z");
  });

  it("drops connections past maxConnections", async () => {
    const l = await start({ maxConnections: 1 }, answer);
    const kept = connect(l.address);
    kept.socket.write(get("/1"));
    await until(() => kept.text().includes("answer to /1"));
    const extra = connect(l.address);
    extra.socket.write(get("/2"));
    await extra.closed;
    expect(extra.text()).toBe("");
    kept.socket.destroy();
  });

  it("cuts a request that is not sent within the read timeout, before the handler sees it", async () => {
    let handled = 0;
    const l = await start({ readTimeoutMs: 200 }, async (req, res) => {
      handled++;
      await answer(req, res);
    });
    const slow = connect(l.address);
    slow.socket.write("GET /slow HTTP/1.1\r\nHost: t\r\n");
    await slow.closed;
    expect(slow.text()).toMatch(/^HTTP\/1\.1 408 /);
    expect(handled).toBe(0);
  });

  it("closes the connection of an answer not done within the write timeout", async () => {
    let release = () => {};
    const l = await start({ writeTimeoutMs: 200 }, (req) => {
      req.resume();
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    const c = connect(l.address);
    c.socket.write(get("/never"));
    await c.closed;
    expect(c.text()).toBe("");
    release();
  });

  it("lets the owner answer a missed write deadline itself", async () => {
    let release = () => {};
    const timedOut = (res: ServerResponse) => res.writeHead(504).end("too slow");
    const l = await start({ writeTimeoutMs: 200, onWriteTimeout: timedOut }, (req) => {
      req.resume();
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    const res = await fetch(`${l.address}/late`);
    expect(res.status).toBe(504);
    expect(await res.text()).toBe("too slow");
    release();
  });

  it("answers a connection's pipelined requests one at a time, in order", async () => {
    const log: string[] = [];
    const l = await start({}, async (req, res) => {
      req.resume();
      log.push(`start ${req.url}`);
      await new Promise((r) => setTimeout(r, 20));
      log.push(`end ${req.url}`);
      res.end(`answer to ${req.url}`);
    });
    const c = connect(l.address);
    c.socket.write(get("/a") + get("/b") + get("/c"));
    await until(() => c.text().includes("answer to /c"));
    expect(log).toEqual(["start /a", "end /a", "start /b", "end /b", "start /c", "end /c"]);
    expect(c.text().indexOf("answer to /a")).toBeLessThan(c.text().indexOf("answer to /b"));
    c.socket.destroy();
  });

  it("logs a failing handler as '<name> request failed' and closes its connection", async () => {
    const l = await start({ name: "probe" }, async () => {
      throw new Error("handler broke");
    });
    const c = connect(l.address);
    c.socket.write(get("/boom"));
    await c.closed;
    expect(c.text()).toBe("");
    expect(errors).toEqual([{ msg: "probe request failed", ctx: { err: "handler broke" } }]);
  });

  it("close() ends every connection, idle or in the middle of an answer, and stops listening", async () => {
    let busyRuns = 0;
    const l = await HttpListener.start(
      { host: "127.0.0.1", port: 0, name: "test" },
      async (req, res) => {
        if (req.url === "/busy") {
          busyRuns++;
          return new Promise<void>(() => {});
        }
        await answer(req, res);
      },
      { logger },
    );
    const idle = connect(l.address);
    idle.socket.write(get("/k"));
    await until(() => idle.text().includes("answer to /k"));
    const busy = connect(l.address);
    busy.socket.write(get("/busy"));
    await until(() => busyRuns === 1);
    await l.close();
    await Promise.all([idle.closed, busy.closed]);
    await expect(fetch(l.address)).rejects.toThrow();
  });
});
