import { Reference, Stack, Tokenization } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * How cdk-nag names a resource reference inside a finding id (`AwsSolutions-IAM5[Resource::...]`), as seen
 * from `scope`'s stack: `<LogicalId.Arn>` for an attribute of the same stack, the export name for a value
 * imported from another stack (`Stack.exportValue` yields the export an automatic reference would use).
 * This lets an acknowledgement name one exact finding instead of a pattern.
 */
export const nagReference = (scope: IConstruct, value: string): string => {
  const consumer = Stack.of(scope);
  const token = Tokenization.reverse(value, { failConcat: false });
  const producer = token && Reference.isReference(token) ? Stack.of(token.target) : consumer;
  const local = producer === consumer ? value : producer.exportValue(value);
  return flatten(consumer.resolve(local));
};

const flatten = (node: unknown): string => {
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/}/g, '>');
  if (node && typeof node === 'object') {
    const fn = node as Record<string, unknown>;
    if (Array.isArray(fn['Fn::Join'])) {
      const [delimiter, items] = fn['Fn::Join'] as [string, unknown[]];
      return items.map(flatten).join(delimiter);
    }
    if (Array.isArray(fn['Fn::GetAtt'])) {
      const [logicalId, attribute] = fn['Fn::GetAtt'] as [unknown, unknown];
      return `<${flatten(logicalId)}.${flatten(attribute)}>`;
    }
    if ('Fn::ImportValue' in fn) return flatten(fn['Fn::ImportValue']);
    if ('Ref' in fn) return `<${flatten(fn.Ref)}>`;
  }
  return JSON.stringify(node);
};
