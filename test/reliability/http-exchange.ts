import { Agent, request } from "node:http";

/** One HTTP answer as the fuzz suites check it: status, headers and the whole body as text. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A keep-alive client, so a server that drops a connection after a bad request shows up as an error. */
export function keepAliveAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: 1 });
}

/**
 * Sends one request with the path and headers exactly as given (node:http still refuses characters HTTP
 * forbids, so callers keep to legal ones). Rejects when the server drops the connection instead of answering.
 */
export function exchange(
  base: string,
  opts: {
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    agent?: Agent;
  },
): Promise<HttpAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port: Number(port),
        method: opts.method,
        path: opts.path,
        headers: opts.headers,
        agent: opts.agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

/** Header values node:http lets through: visible Latin-1 plus space and tab. */
export const HEADER_CHAR_CODES = [
  9,
  ...Array.from({ length: 0x7e - 0x20 + 1 }, (_, i) => 0x20 + i),
  ...Array.from({ length: 0xff - 0xa0 + 1 }, (_, i) => 0xa0 + i),
];
