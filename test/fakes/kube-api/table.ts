// Server-side printing: the meta.k8s.io Table kubectl asks for (`Accept: application/json;as=Table;v=v1;
// g=meta.k8s.io`), and PartialObjectMetadata(List) for clients that only want metadata. Columns come from
// the resource (built-in printers, or a CRD's additionalPrinterColumns, or Name/Age); each row carries the
// object as `includeObject` asks (None, Metadata — the default — or Object).
import type { Column, KubeObject, ResourceType } from './resources.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** What the Accept header asks for: a Table (v1 or v1beta1), partial metadata, or plain JSON. */
export type Rendering =
  | { as: 'json' }
  | { as: 'Table'; version: string }
  | { as: 'PartialObjectMetadata'; version: string };

export function negotiate(accept: string | undefined): Rendering | undefined {
  if (!accept) return { as: 'json' };
  for (const clause of accept.split(',')) {
    const [mediaType, ...parameterTexts] = clause.split(';').map((part) => part.trim());
    const parameters = Object.fromEntries(
      parameterTexts.map((text) => text.split('=').map((part) => part.trim()) as [string, string]),
    );
    if (mediaType !== 'application/json' && mediaType !== '*/*' && mediaType !== 'application/*') continue;
    if (
      parameters.as === 'Table' &&
      parameters.g === 'meta.k8s.io' &&
      (parameters.v === 'v1' || parameters.v === 'v1beta1')
    )
      return { as: 'Table', version: parameters.v };
    if (
      (parameters.as === 'PartialObjectMetadata' || parameters.as === 'PartialObjectMetadataList') &&
      parameters.g === 'meta.k8s.io'
    )
      return { as: 'PartialObjectMetadata', version: parameters.v ?? 'v1' };
    if (!parameters.as) return { as: 'json' };
  }
  return undefined;
}

function partial(object: KubeObject, version: string): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: object.metadata };
}

function columnDefinition(column: Column): Record<string, unknown> {
  return {
    name: column.name,
    type: column.type,
    format: column.format ?? '',
    description: column.description,
    priority: column.priority,
  };
}

export function toTable(
  resource: ResourceType,
  version: string,
  tableVersion: string,
  objects: KubeObject[],
  include: IncludeObject,
  now: number,
  listMeta: Record<string, unknown>,
): Record<string, unknown> {
  const columns = resource.columns(version);
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${tableVersion}`,
    metadata: listMeta,
    columnDefinitions: columns.map(columnDefinition),
    rows: objects.map((object) => ({
      cells: columns.map((column) => column.cell(object, now) ?? null),
      ...(include === 'None' ? {} : { object: include === 'Object' ? object : partial(object, tableVersion) }),
    })),
  };
}

export function toPartialList(
  objects: KubeObject[],
  version: string,
  listMeta: Record<string, unknown>,
): Record<string, unknown> {
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: listMeta,
    items: objects.map((object) => partial(object, version)),
  };
}

export function toPartial(object: KubeObject, version: string): Record<string, unknown> {
  return partial(object, version);
}
