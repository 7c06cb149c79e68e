// The gRPC ceiling: a bare @grpc/grpc-js server whose one unary method answers a constant message, run as its
// own process like the node is. The method's path is the first argument. Prints "listening <port>" once ready.
import { Server, ServerCredentials, type ServerUnaryCall, type sendUnaryData } from "@grpc/grpc-js";

const method = process.argv[2] ?? "/bench.Bare/Get";
const raw = (b: Buffer) => b;
// An empty QueryCurrentPlanResponse is zero bytes too: the same answer the node gives.
const answer = Buffer.alloc(0);

const server = new Server();
server.addService(
  {
    Get: {
      path: method,
      requestStream: false,
      responseStream: false,
      requestSerialize: raw,
      requestDeserialize: raw,
      responseSerialize: raw,
      responseDeserialize: raw,
    },
  },
  { Get: (_call: ServerUnaryCall<Buffer, Buffer>, cb: sendUnaryData<Buffer>) => cb(null, answer) },
);
server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  console.log(`listening ${port}`);
});
process.on("SIGTERM", () => server.tryShutdown(() => process.exit(0)));
