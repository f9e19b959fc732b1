declare module 's3rver' {
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
  }
  export default class S3rver {
    constructor(options?: S3rverOptions);
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
    /** The HTTP server `run` started. */
    httpServer?: import('node:http').Server;
  }
}

declare module 's3rver/lib/models/account' {
  /** An s3rver account: its access key ids and their secrets. */
  export interface S3rverAccount {
    accessKeys: Map<string, string>;
    createKeyPair: (accessKeyId: string, secretAccessKey: string) => void;
    revokeAccessKey: (accessKeyId: string) => void;
  }
  /** The module's export: every known access key id's account, and the built-in `S3RVER` account. */
  export interface AccountRegistry {
    registry: Map<string, S3rverAccount>;
    DUMMY_ACCOUNT: S3rverAccount;
  }
}
