import { constants, type Http2Server, type Http2Session, type ServerHttp2Stream } from "node:http2";
import { status } from "@grpc/grpc-js";
import { GrpcMessageProgress } from "./grpc-message-progress.js";

export interface GrpcRequestLimits {
  /** The longest a call's request may take to arrive, from its start or its previous message; 0: no limit. */
  readTimeoutMs: number;
  /** Bytes of messages still arriving that one connection may make the node hold. */
  maxPendingBytesPerConnection: number;
  /** The same across all connections. */
  maxPendingBytes: number;
}

/**
 * Watches each call's request as it arrives on `h2`'s streams. grpc-js reads a message whole before its handler
 * sees it, and keeps reading as fast as a client sends, so HTTP/2 flow control never holds a client back: without
 * these limits a client holds max-recv-msg-size on every stream it leaves one byte short. A call whose bytes take
 * a connection or the node past its limit, or whose request is not in within the read timeout, ends at once
 * with a status naming the setting, and its bytes are let go.
 */
export function limitGrpcRequests(h2: Http2Server, limits: GrpcRequestLimits): void {
  const perConnection = new WeakMap<Http2Session, { bytes: number }>();
  /** Bytes of request messages still arriving, on every connection. */
  const load = { pendingBytes: 0 };
  h2.on("stream", (stream: ServerHttp2Stream) => {
    // grpc-js has already answered it (unknown method, wrong content type).
    if (stream.closed || stream.destroyed) return;
    const session = stream.session;
    if (!session) return;
    let connection = perConnection.get(session);
    if (!connection) {
      connection = { bytes: 0 };
      perConnection.set(session, connection);
    }
    const conn = connection;
    const progress = new GrpcMessageProgress();
    let held = 0;
    let done = false;
    const timer =
      limits.readTimeoutMs > 0
        ? setTimeout(
            () =>
              end(
                status.DEADLINE_EXCEEDED,
                `the request did not arrive within ${limits.readTimeoutMs / 1000} s (read-timeout in app.toml [grpc])`,
              ),
            limits.readTimeoutMs,
          )
        : undefined;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      conn.bytes -= held;
      load.pendingBytes -= held;
      held = 0;
      stream.off("data", onData);
    };
    const end = (code: status, message: string) => {
      finish();
      endCall(stream, code, message);
    };
    const onData = (chunk: Buffer) => {
      if (progress.push(chunk) > 0) timer?.refresh();
      const grew = progress.pending - held;
      conn.bytes += grew;
      load.pendingBytes += grew;
      held = progress.pending;
      if (grew <= 0) return;
      if (conn.bytes > limits.maxPendingBytesPerConnection)
        end(
          status.RESOURCE_EXHAUSTED,
          `requests still arriving on this connection would hold more than ${limits.maxPendingBytesPerConnection} bytes (max-recv-buffer-per-connection in app.toml [grpc])`,
        );
      else if (load.pendingBytes > limits.maxPendingBytes)
        end(
          status.RESOURCE_EXHAUSTED,
          `requests still arriving would hold more than ${limits.maxPendingBytes} bytes on this node (max-recv-buffer in app.toml [grpc])`,
        );
    };
    stream.on("data", onData);
    // The request is complete (half-close), or the call is over.
    stream.once("end", finish);
    stream.once("close", finish);
  });
}

/**
 * Ends a call with a gRPC status: a trailers-only answer when nothing was sent yet, then RST_STREAM (NO_ERROR,
 * as HTTP/2 lets a server that answered early tell the client to stop sending). A call that has answered
 * already (a streaming one) can only be reset.
 */
function endCall(stream: ServerHttp2Stream, code: status, message: string): void {
  if (stream.closed || stream.destroyed) return;
  if (stream.headersSent) {
    stream.close(
      code === status.RESOURCE_EXHAUSTED ? constants.NGHTTP2_ENHANCE_YOUR_CALM : constants.NGHTTP2_CANCEL,
    );
    return;
  }
  stream.respond(
    {
      ":status": 200,
      "content-type": "application/grpc+proto",
      "grpc-status": String(code),
      "grpc-message": encodeURI(message),
    },
    { endStream: true },
  );
  stream.close(constants.NGHTTP2_NO_ERROR);
}
