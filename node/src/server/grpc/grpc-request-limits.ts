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

/** Bytes of request messages still arriving: on one connection, or on all of them. */
interface PendingBytes {
  bytes: number;
}

/**
 * Watches each call's request as it arrives on `h2`'s streams. grpc-js reads a message whole before its handler
 * sees it, and keeps reading as fast as a client sends, so HTTP/2 flow control never holds a client back: without
 * these limits a client holds max-recv-msg-size on every stream it leaves one byte short. A call whose bytes take
 * a connection or the node past its limit, or whose request is not in within the read timeout, ends at once
 * with a status naming the setting, and its bytes are let go.
 */
export function limitGrpcRequests(h2: Http2Server, limits: GrpcRequestLimits): void {
  const perConnection = new WeakMap<Http2Session, PendingBytes>();
  const node: PendingBytes = { bytes: 0 };
  // One sweep for every call rather than a timer each, as Node checks HTTP request deadlines: it runs four
  // times a timeout (at most every second), so a call is cut within a quarter of the timeout past it.
  const sweep = limits.readTimeoutMs > 0 ? new DeadlineSweep(limits.readTimeoutMs) : undefined;
  h2.on("stream", (stream: ServerHttp2Stream) => {
    // grpc-js has already answered it (unknown method, wrong content type).
    if (stream.closed || stream.destroyed || !stream.session) return;
    let conn = perConnection.get(stream.session);
    if (!conn) {
      conn = { bytes: 0 };
      perConnection.set(stream.session, conn);
    }
    const request = new WatchedRequest(stream, conn, node, limits, sweep);
    sweep?.reading.add(request);
  });
  if (sweep) h2.once("close", () => sweep.stop());
}

/** The requests still arriving, checked against the read timeout on a tick of its own. */
class DeadlineSweep {
  readonly reading = new Set<WatchedRequest>();
  /** Ticks since the sweep began; a request that saw none of its bytes complete a message for `ticksAllowed` is late. */
  tick = 0;
  readonly ticksAllowed: number;
  private readonly timer: NodeJS.Timeout;

  constructor(readTimeoutMs: number) {
    const every = Math.min(readTimeoutMs / 4, 1000);
    this.ticksAllowed = Math.ceil(readTimeoutMs / every);
    this.timer = setInterval(() => {
      this.tick++;
      for (const r of this.reading) r.checkDeadline();
    }, every);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** One call's request while it arrives: its bytes counted against the limits, its deadline watched. */
class WatchedRequest {
  private readonly progress = new GrpcMessageProgress();
  private held = 0;
  private done = false;
  /** The sweep's tick when the call started or its last message completed. */
  private since: number;

  constructor(
    private readonly stream: ServerHttp2Stream,
    private readonly conn: PendingBytes,
    private readonly node: PendingBytes,
    private readonly limits: GrpcRequestLimits,
    private readonly sweep: DeadlineSweep | undefined,
  ) {
    this.since = sweep?.tick ?? 0;
    stream.on("data", this.onData);
    stream.on("close", this.finish);
  }

  checkDeadline(): void {
    const sweep = this.sweep!;
    // Half-closed: the whole request is in.
    if (this.stream.readableEnded) sweep.reading.delete(this);
    else if (sweep.tick - this.since > sweep.ticksAllowed)
      this.end(
        status.DEADLINE_EXCEEDED,
        `the request did not arrive within ${this.limits.readTimeoutMs / 1000} s (read-timeout in app.toml [grpc])`,
      );
  }

  private readonly onData = (chunk: Buffer) => {
    if (this.done) return;
    if (this.progress.push(chunk) > 0 && this.sweep) this.since = this.sweep.tick;
    const grew = this.progress.pending - this.held;
    this.conn.bytes += grew;
    this.node.bytes += grew;
    this.held = this.progress.pending;
    if (grew <= 0) return;
    if (this.conn.bytes > this.limits.maxPendingBytesPerConnection)
      this.end(
        status.RESOURCE_EXHAUSTED,
        `requests still arriving on this connection would hold more than ${this.limits.maxPendingBytesPerConnection} bytes (max-recv-buffer-per-connection in app.toml [grpc])`,
      );
    else if (this.node.bytes > this.limits.maxPendingBytes)
      this.end(
        status.RESOURCE_EXHAUSTED,
        `requests still arriving would hold more than ${this.limits.maxPendingBytes} bytes on this node (max-recv-buffer in app.toml [grpc])`,
      );
  };

  /** The call is over, or ended here: its bytes are let go, and what still arrives is not counted. */
  private readonly finish = () => {
    if (this.done) return;
    this.done = true;
    this.sweep?.reading.delete(this);
    this.conn.bytes -= this.held;
    this.node.bytes -= this.held;
    this.held = 0;
  };

  private end(code: status, message: string): void {
    this.finish();
    endCall(this.stream, code, message);
  }
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
