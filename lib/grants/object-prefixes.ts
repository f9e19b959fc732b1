import { Validations } from 'aws-cdk-lib';
import { type IPrincipal, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';
import {
  OBJECT_PREFIXES,
  type ObjectPrefix,
  TENANT_OBJECT_ROOT,
} from '../../functions/shared/types/object-prefixes';
import { nagReference } from '../nag';

/**
 * The object prefixes of the bucket (`functions/shared/types/object-prefixes.ts`, which the runtime path
 * builders use too) as IAM resource patterns: `companies/`, any company id, `/<prefix>`, any rest. The company
 * segment is a wildcard
 * (ids are chosen at run time, and each function builds or validates keys under the caller's own company);
 * the prefix after it is fixed, so a grant reaches one kind of object, never the whole bucket.
 * `test/infra/object-prefixes.test.ts` checks each pattern against the path builders.
 */
export type ObjectAction =
  | 's3:GetObject'
  | 's3:PutObject'
  | 's3:DeleteObject'
  | 's3:AbortMultipartUpload'
  | 's3:ListMultipartUploadParts';

/**
 * Object actions, each on the prefixes it touches (`HeadObject` is `s3:GetObject`; creating, uploading parts
 * of and completing a multipart upload are `s3:PutObject`, ListParts is `s3:ListMultipartUploadParts`).
 */
export type ObjectGrants = Partial<Record<ObjectAction, readonly ObjectPrefix[]>>;

export const objectPattern = (prefix: ObjectPrefix): string =>
  `${TENANT_OBJECT_ROOT}*/${OBJECT_PREFIXES[prefix]}*`;

/**
 * Adds `grants` to `principal`: one statement per distinct set of prefixes, with every action on exactly that
 * set, and a cdk-nag acknowledgement for each pattern (its `*` is the run-time company and object id).
 */
export const grantObjects = (
  principal: IPrincipal & IConstruct,
  bucket: IBucket,
  grants: ObjectGrants,
  reason: string,
): void => {
  const byPrefixes = new Map<string, { patterns: string[]; actions: string[] }>();
  for (const [action, prefixes] of Object.entries(grants)) {
    if (!prefixes?.length) continue;
    const patterns = [...new Set(prefixes.map(objectPattern))].sort();
    const id = patterns.join(' ');
    const entry = byPrefixes.get(id) ?? { patterns, actions: [] };
    entry.actions.push(action);
    byPrefixes.set(id, entry);
  }
  const acknowledged = new Set<string>();
  for (const { patterns, actions } of byPrefixes.values()) {
    principal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: actions.sort(),
        resources: patterns.map((pattern) => bucket.arnForObjects(pattern)),
      }),
    );
    for (const pattern of patterns) {
      if (acknowledged.has(pattern)) continue;
      acknowledged.add(pattern);
      Validations.of(principal).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagReference(principal, bucket.bucketArn)}/${pattern}]`,
        reason: `${reason} Objects under ${pattern} only: the company and object id are chosen at run time.`,
      });
    }
  }
};
