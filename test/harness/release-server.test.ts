import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReleaseServer } from "../../harness/src/release-server.js";

describe("ReleaseServer", () => {
  let dir: string;
  let server: ReleaseServer;
  const body = Buffer.alloc(256 * 1024, 7);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "release-server-"));
    writeFileSync(join(dir, "a.tar.gz"), body);
    server = await ReleaseServer.start({ dir });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves files by name on loopback and counts requests", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(server.fileUrl("a.tar.gz"));
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);
    expect(server.requests.get("a.tar.gz")).toBe(1);
  });

  it("answers 404 for missing files and for anything that looks like a path", async () => {
    expect((await fetch(server.fileUrl("missing"))).status).toBe(404);
    expect((await fetch(`${server.url}/..%2F..%2Fetc%2Fpasswd`)).status).toBe(404);
  });

  it("misbehaves on demand: a 500, a dropped connection, corrupted bytes, then serves normally", async () => {
    server.injectFault("a.tar.gz", "status-500");
    expect((await fetch(server.fileUrl("a.tar.gz"))).status).toBe(500);
    server.injectFault("a.tar.gz", "drop-midway");
    await expect(fetch(server.fileUrl("a.tar.gz")).then((r) => r.arrayBuffer())).rejects.toThrow();
    server.injectFault("a.tar.gz", "corrupt");
    const corrupted = Buffer.from(await (await fetch(server.fileUrl("a.tar.gz"))).arrayBuffer());
    expect(corrupted.length).toBe(body.length);
    expect(corrupted.equals(body)).toBe(false);
    const good = Buffer.from(await (await fetch(server.fileUrl("a.tar.gz"))).arrayBuffer());
    expect(good.equals(body)).toBe(true);
  });
});

describe("ReleaseServer with credentials", () => {
  let dir: string;
  let server: ReleaseServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "release-server-auth-"));
    writeFileSync(join(dir, "a.tar.gz"), "archive");
    server = await ReleaseServer.start({
      dir,
      auth: { basic: { user: "u", password: "p" }, query: { param: "token", value: "t" } },
    });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 401 without basic auth and the query token, serves with both, and logs what each request carried", async () => {
    const basic = `Basic ${Buffer.from("u:p").toString("base64")}`;
    expect((await fetch(server.fileUrl("a.tar.gz"))).status).toBe(401);
    expect((await fetch(`${server.fileUrl("a.tar.gz")}?token=t`)).status).toBe(401);
    expect((await fetch(server.fileUrl("a.tar.gz"), { headers: { authorization: basic } })).status).toBe(401);
    const ok = await fetch(`${server.fileUrl("a.tar.gz")}?token=t`, { headers: { authorization: basic } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe("archive");
    expect(server.log.map((r) => [r.authorization, r.query])).toEqual([
      [null, ""],
      [null, "?token=t"],
      [basic, ""],
      [basic, "?token=t"],
    ]);
  });

  it("redirects a file to another URL on demand", async () => {
    server.redirect("a.tar.gz", "http://127.0.0.1:1/elsewhere");
    const basic = `Basic ${Buffer.from("u:p").toString("base64")}`;
    const res = await fetch(`${server.fileUrl("a.tar.gz")}?token=t`, {
      headers: { authorization: basic },
      redirect: "manual",
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("http://127.0.0.1:1/elsewhere");
  });
});
