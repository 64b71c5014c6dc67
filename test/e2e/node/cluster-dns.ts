// The real node's substitute for CoreDNS (whose image would come from a registry): a DNS server on the node's
// bridge address that answers A queries for Service names, `<service>.<namespace>.svc.cluster.local`, with the
// Service's ClusterIP, read from the API server on each query (a handful of queries a test). Every other name
// gets NXDOMAIN, AAAA for a Service no answer (IPv4 cluster). UDP only, no upstream: pods reach only the node.
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import type { CoreV1Api } from '@kubernetes/client-node';

const CLUSTER_DOMAIN = 'svc.cluster.local';
const TYPE_A = 1;
const RCODE_NXDOMAIN = 3;

export interface ClusterDns {
  /** Names asked for, in order (for a test's diagnosis). */
  queries: string[];
  close(): Promise<void>;
}

interface Question {
  name: string;
  type: number;
  /** The question section as it came, echoed in the answer. */
  raw: Buffer;
}

function parseQuestion(msg: Buffer): Question | undefined {
  if (msg.length < 12 || msg.readUInt16BE(4) !== 1) return undefined;
  const labels: string[] = [];
  let at = 12;
  while (at < msg.length && msg[at] !== 0) {
    const len = msg[at]!;
    if (len > 63 || at + 1 + len > msg.length) return undefined;
    labels.push(msg.subarray(at + 1, at + 1 + len).toString('ascii'));
    at += 1 + len;
  }
  if (at + 5 > msg.length) return undefined;
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(at + 1), raw: msg.subarray(12, at + 5) };
}

function answer(query: Buffer, q: Question, rcode: number, ip?: string): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // QR, authoritative, recursion desired as asked, recursion available.
  header.writeUInt16BE(0x8580 | (query.readUInt16BE(2) & 0x0100) | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(ip ? 1 : 0, 6);
  if (!ip) return Buffer.concat([header, q.raw]);
  const rr = Buffer.alloc(16);
  rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
  rr.writeUInt16BE(TYPE_A, 2);
  rr.writeUInt16BE(1, 4); // class IN
  rr.writeUInt32BE(5, 6); // TTL
  rr.writeUInt16BE(4, 10);
  ip.split('.').forEach((octet, i) => rr.writeUInt8(Number(octet), 12 + i));
  return Buffer.concat([header, q.raw, rr]);
}

async function clusterIp(core: CoreV1Api, name: string): Promise<string | undefined> {
  if (!name.endsWith(`.${CLUSTER_DOMAIN}`)) return undefined;
  const parts = name.slice(0, -CLUSTER_DOMAIN.length - 1).split('.');
  if (parts.length !== 2) return undefined;
  try {
    const svc = await core.readNamespacedService({ name: parts[0]!, namespace: parts[1]! });
    const ip = svc.spec?.clusterIP;
    return ip && ip !== 'None' ? ip : undefined;
  } catch {
    return undefined;
  }
}

export async function startClusterDns(address: string, core: CoreV1Api): Promise<ClusterDns> {
  const socket: Socket = createSocket('udp4');
  const queries: string[] = [];
  socket.on('message', (msg: Buffer, from: RemoteInfo) => {
    const q = parseQuestion(msg);
    if (!q) return;
    queries.push(q.name);
    void clusterIp(core, q.name).then((ip) => {
      const reply = !ip ? answer(msg, q, RCODE_NXDOMAIN) : answer(msg, q, 0, q.type === TYPE_A ? ip : undefined);
      socket.send(reply, from.port, from.address);
    });
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(53, address, () => resolve());
  });
  return { queries, close: () => new Promise((resolve) => socket.close(() => resolve())) };
}
