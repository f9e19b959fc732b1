import { describe, expect, it } from 'vitest';
import { classifyAddress, outboundUrlProblem } from '../../functions/shared/outbound-addresses';

/** An address an outbound request may reach on AWS: public unicast, never loopback. */
const isPublicUnicastAddress = (text: string): boolean => classifyAddress(text) === 'public';

/**
 * The IANA IPv4 and IPv6 Special-Purpose Address Registries (iana-ipv4-special-registry,
 * iana-ipv6-special-registry), entry by entry, transcribed here independently of the classifier, plus the
 * other blocks no outbound request may reach (multicast, deprecated site-local, outside global unicast).
 * For each entry the first, a middle and the last address are classed; `loopback` entries are loopback,
 * every other entry is refused (including the anycast entries the registry marks globally reachable: no
 * webhook is a protocol anycast service). Entries that embed an IPv4 address are classed as that address.
 */
const IPV4_REGISTRY: [cidr: string, name: string, first: string, middle: string, last: string][] = [
  ['0.0.0.0/8', 'This network', '0.0.0.0', '0.1.2.3', '0.255.255.255'],
  ['0.0.0.0/32', 'This host on this network', '0.0.0.0', '0.0.0.0', '0.0.0.0'],
  ['10.0.0.0/8', 'Private-Use', '10.0.0.0', '10.20.30.40', '10.255.255.255'],
  ['100.64.0.0/10', 'Shared Address Space', '100.64.0.0', '100.100.100.100', '100.127.255.255'],
  ['169.254.0.0/16', 'Link Local', '169.254.0.0', '169.254.169.254', '169.254.255.255'],
  ['172.16.0.0/12', 'Private-Use', '172.16.0.0', '172.20.1.1', '172.31.255.255'],
  ['192.0.0.0/24', 'IETF Protocol Assignments', '192.0.0.0', '192.0.0.100', '192.0.0.255'],
  ['192.0.0.0/29', 'IPv4 Service Continuity Prefix', '192.0.0.0', '192.0.0.4', '192.0.0.7'],
  ['192.0.0.8/32', 'IPv4 dummy address', '192.0.0.8', '192.0.0.8', '192.0.0.8'],
  ['192.0.0.9/32', 'Port Control Protocol Anycast', '192.0.0.9', '192.0.0.9', '192.0.0.9'],
  ['192.0.0.10/32', 'Traversal Using Relays around NAT Anycast', '192.0.0.10', '192.0.0.10', '192.0.0.10'],
  ['192.0.0.170/32', 'NAT64/DNS64 Discovery', '192.0.0.170', '192.0.0.170', '192.0.0.170'],
  ['192.0.0.171/32', 'NAT64/DNS64 Discovery', '192.0.0.171', '192.0.0.171', '192.0.0.171'],
  ['192.0.2.0/24', 'Documentation (TEST-NET-1)', '192.0.2.0', '192.0.2.1', '192.0.2.255'],
  ['192.31.196.0/24', 'AS112-v4', '192.31.196.0', '192.31.196.1', '192.31.196.255'],
  ['192.52.193.0/24', 'AMT', '192.52.193.0', '192.52.193.1', '192.52.193.255'],
  ['192.88.99.0/24', 'Deprecated (6to4 Relay Anycast)', '192.88.99.0', '192.88.99.1', '192.88.99.255'],
  ['192.88.99.2/32', '6a44-relay anycast address', '192.88.99.2', '192.88.99.2', '192.88.99.2'],
  ['192.168.0.0/16', 'Private-Use', '192.168.0.0', '192.168.1.1', '192.168.255.255'],
  ['192.175.48.0/24', 'Direct Delegation AS112 Service', '192.175.48.0', '192.175.48.6', '192.175.48.255'],
  ['198.18.0.0/15', 'Benchmarking', '198.18.0.0', '198.18.0.1', '198.19.255.255'],
  ['198.51.100.0/24', 'Documentation (TEST-NET-2)', '198.51.100.0', '198.51.100.7', '198.51.100.255'],
  ['203.0.113.0/24', 'Documentation (TEST-NET-3)', '203.0.113.0', '203.0.113.9', '203.0.113.255'],
  ['240.0.0.0/4', 'Reserved', '240.0.0.0', '250.1.2.3', '255.255.255.254'],
  ['255.255.255.255/32', 'Limited Broadcast', '255.255.255.255', '255.255.255.255', '255.255.255.255'],
  // Not in the special-purpose registry, refused all the same.
  ['224.0.0.0/4', 'Multicast', '224.0.0.0', '230.1.2.3', '239.255.255.255'],
];

const IPV6_REGISTRY: [cidr: string, name: string, first: string, middle: string, last: string][] = [
  ['::/128', 'Unspecified Address', '::', '::', '::'],
  [
    '64:ff9b:1::/48',
    'IPv4-IPv6 Translat. (local use)',
    '64:ff9b:1::',
    '64:ff9b:1::a9fe:a9fe',
    '64:ff9b:1:ffff:ffff:ffff:ffff:ffff',
  ],
  ['100::/64', 'Discard-Only Address Block', '100::', '100::1', '100::ffff:ffff:ffff:ffff'],
  ['100:0:0:1::/64', 'Dummy IPv6 Prefix', '100:0:0:1::', '100:0:0:1::1', '100:0:0:1:ffff:ffff:ffff:ffff'],
  [
    '2001::/23',
    'IETF Protocol Assignments',
    '2001::',
    '2001:100::1',
    '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff',
  ],
  [
    '2001::/32',
    'TEREDO',
    '2001::',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001:0:ffff:ffff:ffff:ffff:ffff:ffff',
  ],
  ['2001:1::1/128', 'Port Control Protocol Anycast', '2001:1::1', '2001:1::1', '2001:1::1'],
  ['2001:1::2/128', 'Traversal Using Relays around NAT Anycast', '2001:1::2', '2001:1::2', '2001:1::2'],
  ['2001:1::3/128', 'DNS-SD Service Registration Protocol Anycast', '2001:1::3', '2001:1::3', '2001:1::3'],
  ['2001:2::/48', 'Benchmarking', '2001:2::', '2001:2::1', '2001:2:0:ffff:ffff:ffff:ffff:ffff'],
  ['2001:3::/32', 'AMT', '2001:3::', '2001:3::1', '2001:3:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:4:112::/48', 'AS112-v6', '2001:4:112::', '2001:4:112::1', '2001:4:112:ffff:ffff:ffff:ffff:ffff'],
  [
    '2001:10::/28',
    'Deprecated (previously ORCHID)',
    '2001:10::',
    '2001:10::1',
    '2001:1f:ffff:ffff:ffff:ffff:ffff:ffff',
  ],
  ['2001:20::/28', 'ORCHIDv2', '2001:20::', '2001:20::1', '2001:2f:ffff:ffff:ffff:ffff:ffff:ffff'],
  [
    '2001:30::/28',
    'Drone Remote ID Protocol Entity Tags',
    '2001:30::',
    '2001:30::1',
    '2001:3f:ffff:ffff:ffff:ffff:ffff:ffff',
  ],
  ['2001:db8::/32', 'Documentation', '2001:db8::', '2001:db8::1', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'],
  [
    '2620:4f:8000::/48',
    'Direct Delegation AS112 Service',
    '2620:4f:8000::',
    '2620:4f:8000::1',
    '2620:4f:8000:ffff:ffff:ffff:ffff:ffff',
  ],
  ['3fff::/20', 'Documentation', '3fff::', '3fff::1', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff'],
  [
    '5f00::/16',
    'Segment Routing (SRv6) SIDs',
    '5f00::',
    '5f00::1',
    '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
  ],
  ['fc00::/7', 'Unique-Local', 'fc00::', 'fd12:3456::1', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['fe80::/10', 'Link-Local Unicast', 'fe80::', 'fe80::1%eth0', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  // Not in the special-purpose registry, refused all the same.
  ['fec0::/10', 'Deprecated site-local', 'fec0::', 'fec0::1', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['ff00::/8', 'Multicast', 'ff00::', 'ff02::1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['::/96', 'IPv4-compatible (deprecated)', '::2', '::a9fe:a9fe', '::808:808'],
  ['4000::/2', 'Outside global unicast 2000::/3', '4000::', '8000::1', 'bfff::1'],
  ['::/3 beyond the entries above', 'Outside global unicast 2000::/3', '1::', '1000::1', '1fff:ffff::1'],
];

/** Entries that carry an IPv4 address: classed as the address they carry. */
const EMBEDDING: [cidr: string, name: string, carry: (v4: string) => string][] = [
  ['::ffff:0:0/96', 'IPv4-mapped Address', (v4) => `::ffff:${v4}`],
  ['::ffff:0:0:0/96', 'IPv4-translated Address', (v4) => `::ffff:0:${v4}`],
  ['64:ff9b::/96', 'IPv4-IPv6 Translat. (NAT64 well-known prefix)', (v4) => `64:ff9b::${v4}`],
  [
    '2002::/16',
    '6to4',
    (v4) => {
      const [a = 0, b = 0, c = 0, d = 0] = v4.split('.').map(Number);
      const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
      return `2002:${hex(a, b)}:${hex(c, d)}::1`;
    },
  ],
];

describe('special-purpose address registries', () => {
  it.each(IPV4_REGISTRY)('IPv4 %s (%s) is refused', (_cidr, _name, ...addresses) => {
    for (const address of addresses) {
      expect(classifyAddress(address), address).toBe('refused');
      expect(isPublicUnicastAddress(address), address).toBe(false);
    }
  });

  it('IPv4 127.0.0.0/8 (Loopback) is loopback, never public', () => {
    for (const address of ['127.0.0.0', '127.0.0.1', '127.255.255.255']) {
      expect(classifyAddress(address), address).toBe('loopback');
      expect(isPublicUnicastAddress(address), address).toBe(false);
    }
  });

  it.each(IPV6_REGISTRY)('IPv6 %s (%s) is refused', (_cidr, _name, ...addresses) => {
    for (const address of addresses) {
      expect(classifyAddress(address), address).toBe('refused');
      expect(isPublicUnicastAddress(address), address).toBe(false);
    }
  });

  it('IPv6 ::1/128 (Loopback) is loopback, never public', () => {
    for (const address of ['::1', '0:0:0:0:0:0:0:1'])
      expect(classifyAddress(address), address).toBe('loopback');
    expect(isPublicUnicastAddress('::1')).toBe(false);
  });

  it.each(EMBEDDING)('IPv6 %s (%s) is classed as the IPv4 address it carries', (_cidr, _name, carry) => {
    for (const [v4, expected] of [
      ['8.8.8.8', 'public'],
      ['127.0.0.1', 'loopback'],
      ['169.254.169.254', 'refused'],
      ['10.0.0.1', 'refused'],
      ['198.18.0.1', 'refused'],
      ['192.0.0.170', 'refused'],
    ] as const) {
      expect(classifyAddress(carry(v4)), `${carry(v4)} carrying ${v4}`).toBe(expected);
    }
  });

  it('classes ordinary global unicast addresses as public', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '100.128.0.1',
      '192.0.3.1',
      '198.20.0.1',
      '2606:4700::1111',
      '2a00:1450:4001::200e',
      '2001:200::1',
    ]) {
      expect(classifyAddress(address), address).toBe('public');
      expect(isPublicUnicastAddress(address), address).toBe(true);
    }
  });

  it('refuses what is not an address', () => {
    for (const text of ['', 'example.com', '1.2.3', '256.1.1.1', '2130706433', '::g', '1::2::3']) {
      expect(classifyAddress(text), text).toBe('refused');
    }
  });
});

describe('outbound URLs', () => {
  it('refuses the literal addresses of the registries in any spelling a URL allows', () => {
    for (const url of [
      'https://198.18.0.1/hook',
      'https://[2001:db8::1]/hook',
      'https://[::ffff:169.254.169.254]/hook',
      'https://0xa9fea9fe/hook',
      'https://2852039166/hook',
      'https://0251.0376.0251.0376/hook',
    ]) {
      expect(outboundUrlProblem(url, { allowLoopback: true }), url).toBeDefined();
    }
  });

  it('keeps loopback for the local stack only, and https elsewhere', () => {
    expect(outboundUrlProblem('http://127.0.0.1:9000/x', { allowLoopback: true })).toBeUndefined();
    expect(outboundUrlProblem('http://127.0.0.1:9000/x', { allowLoopback: false })).toBeDefined();
    expect(outboundUrlProblem('https://[::1]/x', { allowLoopback: false })).toBeDefined();
    expect(outboundUrlProblem('https://hooks.example.com/x', { allowLoopback: false })).toBeUndefined();
    expect(outboundUrlProblem('http://hooks.example.com/x', { allowLoopback: true })).toBeDefined();
    expect(outboundUrlProblem('https://u:p@hooks.example.com/x', { allowLoopback: false })).toBeDefined();
  });
});
