// The REST ceiling: a bare node:http server answering one constant JSON body, run as its own process like the
// node is. Prints "listening <port>" once ready.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const body = Buffer.from(JSON.stringify({ plan: null }));
const server = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
  res.end(body);
});
server.listen(0, "127.0.0.1", () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
