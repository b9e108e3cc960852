// Node's libuv stream handles (TCP sockets and pipes), the layer under net.Socket, driven directly.
// Hooks start before every prompt: requiring node:net pulls in Node's whole stream machinery
// (~3.5 ms on Node 22) and a threadpool read of stdin costs ~0.8 ms more than an event-loop read
// (docs/performance.md). These bindings are internal, so their shape is checked once at load and
// anything unexpected — a changed shape, a Node without process.binding, a permission model that
// refuses it — means the public path (node:net, fs.read): slower, same bytes.

/** libuv's end-of-stream code; the same number on every platform (uv-errno.h: UV__EOF). */
export const UV_EOF = -4095;

export interface StreamHandle {
  readStart(): number;
  readStop(): number;
  writeUtf8String(request: WriteRequest, text: string): number;
  close(): void;
  /** Node asserts this is always a function; the read's result is in lastRead(). */
  onread: (buffer: ArrayBuffer | undefined) => void;
}
export interface TcpHandle extends StreamHandle {
  connect(request: ConnectRequest, address: string, port: number): number;
  connect6(request: ConnectRequest, address: string, port: number): number;
  setNoDelay(enable: boolean): number;
}
export interface PipeHandle extends StreamHandle {
  open(fd: number): number;
}
export interface ConnectRequest {
  oncomplete: (status: number) => void;
}
export interface WriteRequest {
  handle: StreamHandle;
  oncomplete: (status: number) => void;
}

export interface LibuvStreams {
  tcp(): TcpHandle;
  pipe(): PipeHandle;
  connectRequest(): ConnectRequest;
  writeRequest(handle: StreamHandle): WriteRequest;
  /** The byte count (or negative libuv code) and offset of the read being delivered to onread. */
  lastRead(): { nread: number; offset: number };
}

export type BindingLoader = (name: string) => unknown;
type Constructor<T> = new (...args: unknown[]) => T;

const STREAM_METHODS = ['readStart', 'readStop', 'writeUtf8String', 'close'];
const TCP_METHODS = [...STREAM_METHODS, 'connect', 'connect6', 'setNoDelay'];
const PIPE_METHODS = [...STREAM_METHODS, 'open'];

const hasMethods = (type: unknown, names: string[]) =>
  typeof type === 'function' &&
  names.every((name) => typeof (type.prototype as Record<string, unknown>)[name] === 'function');

/** The bindings when they have exactly the shape this file drives, otherwise undefined. */
export function loadLibuvStreams(load: BindingLoader | undefined): LibuvStreams | undefined {
  if (typeof load !== 'function') return undefined;
  try {
    const tcpWrap = load('tcp_wrap') as Record<string, unknown>;
    const pipeWrap = load('pipe_wrap') as Record<string, unknown>;
    const streamWrap = load('stream_wrap') as Record<string, unknown>;
    const TCP = tcpWrap['TCP'] as Constructor<TcpHandle>;
    const Pipe = pipeWrap['Pipe'] as Constructor<PipeHandle>;
    const TCPConnectWrap = tcpWrap['TCPConnectWrap'] as Constructor<ConnectRequest>;
    const WriteWrap = streamWrap['WriteWrap'] as Constructor<WriteRequest>;
    const tcpSocket = (tcpWrap['constants'] as Record<string, unknown> | undefined)?.['SOCKET'];
    const pipeSocket = (pipeWrap['constants'] as Record<string, unknown> | undefined)?.['SOCKET'];
    const state = streamWrap['streamBaseState'];
    const nreadIndex = streamWrap['kReadBytesOrError'];
    const offsetIndex = streamWrap['kArrayBufferOffset'];
    if (
      !hasMethods(TCP, TCP_METHODS) ||
      !hasMethods(Pipe, PIPE_METHODS) ||
      typeof TCPConnectWrap !== 'function' ||
      typeof WriteWrap !== 'function' ||
      typeof tcpSocket !== 'number' ||
      typeof pipeSocket !== 'number' ||
      !(state instanceof Int32Array) ||
      typeof nreadIndex !== 'number' ||
      typeof offsetIndex !== 'number'
    ) {
      return undefined;
    }
    return {
      tcp: () => new TCP(tcpSocket),
      pipe: () => new Pipe(pipeSocket),
      connectRequest: () => new TCPConnectWrap(),
      writeRequest: (handle) => {
        const request = new WriteWrap();
        request.handle = handle;
        return request;
      },
      lastRead: () => ({ nread: state[nreadIndex] ?? 0, offset: state[offsetIndex] ?? 0 }),
    };
  } catch {
    return undefined;
  }
}

let probed: LibuvStreams | null | undefined;
/** This process's bindings, probed once, on first need. */
export function processLibuvStreams(): LibuvStreams | undefined {
  if (probed === undefined) {
    // process.binding is no longer in Node's typings; it still serves these bindings without a warning.
    const { binding } = process as unknown as { binding?: BindingLoader };
    probed =
      loadLibuvStreams(binding === undefined ? undefined : (name) => binding.call(process, name)) ?? null;
  }
  return probed ?? undefined;
}

export interface ReadSink {
  data(chunk: Uint8Array): void;
  end(): void;
  /** A negative libuv code other than end-of-stream. */
  error(code: number): void;
}

/** Routes a handle's reads to the sink: bytes, then exactly one end or error. */
export function routeReads(streams: LibuvStreams, handle: StreamHandle, sink: ReadSink): void {
  handle.onread = (buffer) => {
    const { nread, offset } = streams.lastRead();
    // The ArrayBuffer is allocated for this read alone, so a view of it can be kept.
    if (nread > 0 && buffer !== undefined) return sink.data(new Uint8Array(buffer, offset, nread));
    if (nread === 0) return;
    // No read reaches the sink after the last one, even if libuv delivers a stray one.
    handle.onread = () => {};
    if (nread === UV_EOF) sink.end();
    else sink.error(nread);
  };
}
