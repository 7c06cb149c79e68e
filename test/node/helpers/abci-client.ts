import { connect, type Socket } from "node:net";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  type Request,
  RequestSchema,
  type Response,
  ResponseSchema,
} from "@chaind/proto/tendermint/abci/types_pb";
import { AbciFrameReader, abciFrame } from "../../../node/src/abci/abci-frames.js";

/** A client socket that sends raw bytes and collects every Response frame and the close. */
export async function abciClient(address: string) {
  const target = address.startsWith("unix://")
    ? { path: address.slice("unix://".length) }
    : { host: "127.0.0.1", port: Number(address.split(":").at(-1)) };
  const socket: Socket = connect(target);
  await new Promise<void>((r) => socket.once("connect", () => r()));
  const reader = new AbciFrameReader(1 << 20);
  const responses: Response[] = [];
  let closed = false;
  socket.on("data", (b) => {
    for (const f of reader.push(b)) responses.push(fromBinary(ResponseSchema, f));
  });
  socket.on("close", () => {
    closed = true;
  });
  const request = (value: Request["value"]) =>
    abciFrame(toBinary(RequestSchema, create(RequestSchema, { value } as never)));
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  };
  return { socket, responses, request, until, closed: () => closed };
}
