import type { Template } from 'aws-cdk-lib/assertions';

export interface CfnResource {
  Type: string;
  Properties: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}

type Reference = { Ref?: string; 'Fn::GetAtt'?: [string, string] };

const resourcesOfType = (template: Template, type: string): Record<string, CfnResource> =>
  template.findResources(type) as Record<string, CfnResource>;

/**
 * Full resource path of every `AWS::ApiGateway::Resource`, rebuilt from its `PathPart` and the `ParentId`
 * chain up to the API's root resource (`Fn::GetAtt [Api, RootResourceId]`).
 */
export const resourcePaths = (template: Template): Map<string, string> => {
  const resources = resourcesOfType(template, 'AWS::ApiGateway::Resource');
  const paths = new Map<string, string>();
  const pathOf = (logicalId: string): string => {
    const known = paths.get(logicalId);
    if (known !== undefined) return known;
    const resource = resources[logicalId];
    if (!resource) throw new Error(`no API Gateway resource ${logicalId}`);
    const parent = resource.Properties.ParentId as Reference;
    const parentPath = parent.Ref ? pathOf(parent.Ref) : '';
    if (!parent.Ref && parent['Fn::GetAtt']?.[1] !== 'RootResourceId') {
      throw new Error(`unexpected parent of ${logicalId}: ${JSON.stringify(parent)}`);
    }
    const path = `${parentPath}/${String(resource.Properties.PathPart)}`;
    paths.set(logicalId, path);
    return path;
  };
  for (const logicalId of Object.keys(resources)) pathOf(logicalId);
  return paths;
};

export interface SynthesizedMethod {
  logicalId: string;
  /** `GET /self`: HTTP method and full resource path. */
  key: string;
  properties: Record<string, unknown>;
}

export const methods = (template: Template): SynthesizedMethod[] => {
  const paths = resourcePaths(template);
  return Object.entries(resourcesOfType(template, 'AWS::ApiGateway::Method')).map(([logicalId, method]) => {
    const resourceId = method.Properties.ResourceId as Reference;
    const path = resourceId.Ref ? paths.get(resourceId.Ref) : '/';
    if (path === undefined) throw new Error(`method ${logicalId} sits on an unknown resource`);
    return {
      logicalId,
      key: `${String(method.Properties.HttpMethod)} ${path}`,
      properties: method.Properties,
    };
  });
};

export { resourcesOfType };
