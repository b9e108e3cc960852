// The bindings are Node internals: loadLibuvStreams must accept exactly the shape it drives and
// answer undefined for anything else, so that callers fall back to node:net and fs.read.
import { describe, expect, it } from 'vitest';
import {
  type BindingLoader,
  type LibuvStreams,
  loadLibuvStreams,
  processLibuvStreams,
  routeReads,
  type StreamHandle,
  UV_EOF,
} from '../../../src/bindings/libuv-stream.js';

type Bindings = Record<'tcp_wrap' | 'pipe_wrap' | 'stream_wrap', Record<string, any>>;

const STREAM_METHODS = ['readStart', 'readStop', 'writeUtf8String', 'close'];
const TCP_METHODS = [...STREAM_METHODS, 'connect', 'connect6', 'setNoDelay'];
const PIPE_METHODS = [...STREAM_METHODS, 'open'];

/** A handle class whose prototype has `methods`, fresh per fake so a case can mutate it alone. */
function handleClass(methods: string[]) {
  const Handle = class {
    constructor(readonly type: number) {}
  };
  for (const name of methods) (Handle.prototype as any)[name] = () => 0;
  return Handle;
}

/** Bindings shaped like Node 20's and 22's: the keys, constants and types loadLibuvStreams reads. */
function fakeBindings(): Bindings {
  return {
    tcp_wrap: {
      TCP: handleClass(TCP_METHODS),
      TCPConnectWrap: class {},
      constants: { SOCKET: 10, SERVER: 11, UV_TCP_IPV6ONLY: 1 },
    },
    pipe_wrap: {
      Pipe: handleClass(PIPE_METHODS),
      PipeConnectWrap: class {},
      constants: { SOCKET: 20, SERVER: 21, IPC: 22, UV_READABLE: 1, UV_WRITABLE: 2 },
    },
    stream_wrap: {
      ShutdownWrap: class {},
      WriteWrap: class {},
      kReadBytesOrError: 2,
      kArrayBufferOffset: 3,
      kBytesWritten: 0,
      kLastWriteWasAsync: 1,
      streamBaseState: new Int32Array(4),
    },
  };
}
const loaderOf =
  (bindings: Bindings): BindingLoader =>
  (name) =>
    bindings[name as keyof Bindings];

const accessDenied = () => {
  // What Node's permission model throws from process.binding.
  throw Object.assign(new Error('Access to this API has been restricted'), { code: 'ERR_ACCESS_DENIED' });
};
const mutated =
  (mutate: (bindings: Bindings) => void): BindingLoader | undefined =>
  (name) => {
    const bindings = fakeBindings();
    mutate(bindings);
    return bindings[name as keyof Bindings];
  };

describe('loadLibuvStreams', () => {
  it('drives a faithful fake: handles built with the SOCKET constants, reads from streamBaseState', () => {
    const bindings = fakeBindings();
    const streams = loadLibuvStreams(loaderOf(bindings));
    expect(streams).toBeDefined();
    const { tcp, pipe, connectRequest, writeRequest, lastRead } = streams as LibuvStreams;
    const tcpHandle = tcp();
    const pipeHandle = pipe();
    const state = bindings.stream_wrap['streamBaseState'] as Int32Array;
    state.set([7, 8, -4095, 12]);
    expect({
      tcp: [tcpHandle instanceof bindings.tcp_wrap['TCP'], (tcpHandle as any).type],
      pipe: [pipeHandle instanceof bindings.pipe_wrap['Pipe'], (pipeHandle as any).type],
      connect: connectRequest() instanceof bindings.tcp_wrap['TCPConnectWrap'],
      write: writeRequest(tcpHandle) instanceof bindings.stream_wrap['WriteWrap'],
      writeHandle: writeRequest(pipeHandle).handle === pipeHandle,
      lastRead: lastRead(),
    }).toEqual({
      tcp: [true, 10],
      pipe: [true, 20],
      connect: true,
      write: true,
      writeHandle: true,
      lastRead: { nread: -4095, offset: 12 },
    });
  });

  const missingMethods = [
    ...TCP_METHODS.map((name): [string, (b: Bindings) => void] => [
      `TCP.prototype.${name} missing`,
      (b) => delete b.tcp_wrap['TCP'].prototype[name],
    ]),
    ...PIPE_METHODS.map((name): [string, (b: Bindings) => void] => [
      `Pipe.prototype.${name} missing`,
      (b) => delete b.pipe_wrap['Pipe'].prototype[name],
    ]),
    ...TCP_METHODS.map((name): [string, (b: Bindings) => void] => [
      `TCP.prototype.${name} not a function`,
      (b) => {
        b.tcp_wrap['TCP'].prototype[name] = 0;
      },
    ]),
  ];

  it.each<[string, BindingLoader | undefined]>([
    ['no loader (a Node without process.binding)', undefined],
    ['a loader that throws ERR_ACCESS_DENIED (the permission model)', accessDenied],
    ['a loader that refuses only stream_wrap', (name) => (name === 'stream_wrap' ? accessDenied() : {})],
    ['a loader that returns undefined', () => undefined],
    ['a loader that returns empty objects', () => ({})],
    ['TCP missing', mutated((b) => delete b.tcp_wrap['TCP'])],
    ['TCP not a constructor', mutated((b) => (b.tcp_wrap['TCP'] = { prototype: {} }))],
    ['Pipe missing', mutated((b) => delete b.pipe_wrap['Pipe'])],
    ['Pipe not a constructor', mutated((b) => (b.pipe_wrap['Pipe'] = 'Pipe'))],
    ['TCPConnectWrap missing', mutated((b) => delete b.tcp_wrap['TCPConnectWrap'])],
    ['TCPConnectWrap not a function', mutated((b) => (b.tcp_wrap['TCPConnectWrap'] = {}))],
    ['WriteWrap missing', mutated((b) => delete b.stream_wrap['WriteWrap'])],
    ['WriteWrap not a function', mutated((b) => (b.stream_wrap['WriteWrap'] = 1))],
    ['tcp constants missing', mutated((b) => delete b.tcp_wrap['constants'])],
    ['tcp constants.SOCKET missing', mutated((b) => delete b.tcp_wrap['constants'].SOCKET)],
    ['tcp constants.SOCKET a string', mutated((b) => (b.tcp_wrap['constants'].SOCKET = '0'))],
    ['pipe constants missing', mutated((b) => delete b.pipe_wrap['constants'])],
    ['pipe constants.SOCKET missing', mutated((b) => delete b.pipe_wrap['constants'].SOCKET)],
    ['pipe constants.SOCKET a string', mutated((b) => (b.pipe_wrap['constants'].SOCKET = '0'))],
    ['streamBaseState missing', mutated((b) => delete b.stream_wrap['streamBaseState'])],
    ['streamBaseState a plain array', mutated((b) => (b.stream_wrap['streamBaseState'] = [0, 0, 0, 0]))],
    [
      'streamBaseState a Float64Array',
      mutated((b) => (b.stream_wrap['streamBaseState'] = new Float64Array(4))),
    ],
    ['kReadBytesOrError missing', mutated((b) => delete b.stream_wrap['kReadBytesOrError'])],
    ['kReadBytesOrError a string', mutated((b) => (b.stream_wrap['kReadBytesOrError'] = '2'))],
    ['kArrayBufferOffset missing', mutated((b) => delete b.stream_wrap['kArrayBufferOffset'])],
    ['kArrayBufferOffset a string', mutated((b) => (b.stream_wrap['kArrayBufferOffset'] = '3'))],
    ...missingMethods.map(([name, mutate]): [string, BindingLoader | undefined] => [name, mutated(mutate)]),
  ])('is undefined for %s', (_case, loader) => {
    expect(loadLibuvStreams(loader)).toBeUndefined();
  });

  it("accepts this Node's real process.binding, and processLibuvStreams probes it", () => {
    const { binding } = process as unknown as { binding: BindingLoader };
    const streams = loadLibuvStreams((name) => binding.call(process, name));
    expect(streams).toBeDefined();
    expect(processLibuvStreams()).toBeDefined();
    // Probed once: the same object every time.
    expect(processLibuvStreams()).toBe(processLibuvStreams());
    // A real handle is made and released without ever opening a descriptor.
    const handle = (streams as LibuvStreams).tcp();
    expect(typeof handle.readStart).toBe('function');
    handle.close();
  });
});

describe('routeReads', () => {
  /** A handle whose onread is driven by the test, and a lastRead() the test sets before each read. */
  function harness() {
    let last = { nread: 0, offset: 0 };
    const streams = { lastRead: () => last } as LibuvStreams;
    const handle = { onread: () => {} } as unknown as StreamHandle;
    const events: (string | [string, number[]] | [string, number])[] = [];
    routeReads(streams, handle, {
      data: (chunk) => events.push(['data', [...chunk]]),
      end: () => events.push('end'),
      error: (code) => events.push(['error', code]),
    });
    const read = (nread: number, offset = 0, buffer?: ArrayBuffer) => {
      last = { nread, offset };
      handle.onread(buffer);
    };
    return { events, read };
  }
  const bytes = (...values: number[]) => Uint8Array.of(...values).buffer;

  it('delivers each chunk as a view of its buffer at the reported offset and length', () => {
    const { events, read } = harness();
    read(3, 0, bytes(1, 2, 3));
    read(2, 1, bytes(9, 4, 5, 9));
    expect(events).toEqual([
      ['data', [1, 2, 3]],
      ['data', [4, 5]],
    ]);
  });

  it('hands out views, not copies, of the read buffer', () => {
    const handle = { onread: () => {} } as unknown as StreamHandle;
    const chunks: Uint8Array[] = [];
    routeReads({ lastRead: () => ({ nread: 2, offset: 1 }) } as LibuvStreams, handle, {
      data: (chunk) => chunks.push(chunk),
      end: () => {},
      error: () => {},
    });
    const buffer = bytes(0, 1, 2, 3);
    handle.onread(buffer);
    expect(chunks.map((c) => [c.buffer === buffer, c.byteOffset, c.byteLength])).toEqual([[true, 1, 2]]);
  });

  it.each<[string, [number, number?, ArrayBuffer?][], unknown[]]>([
    ['nread 0 (EAGAIN) is ignored', [[0], [1, 0, bytes(7)], [0]], [['data', [7]]]],
    ['UV_EOF ends once', [[1, 0, bytes(7)], [UV_EOF]], [['data', [7]], 'end']],
    ['a negative code is an error, once', [[-104]], [['error', -104]]],
    ['nothing reaches the sink after the end', [[UV_EOF], [UV_EOF], [1, 0, bytes(7)], [-104]], ['end']],
    [
      'nothing reaches the sink after an error',
      [[-32], [UV_EOF], [1, 0, bytes(7)], [-104]],
      [['error', -32]],
    ],
  ])('%s', (_case, reads, expected) => {
    const { events, read } = harness();
    for (const [nread, offset, buffer] of reads) read(nread, offset, buffer);
    expect(events).toEqual(expected);
  });
});
