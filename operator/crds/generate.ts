// The CustomResourceDefinitions in crds/, generated from the TypeBox schemas in operator/resources/ so the
// API server validates exactly the shapes the operator's types describe. Pure: builds the objects and their
// YAML text; test/kube/crds.test.ts compares the text with the committed files and rewrites them with
// SVC_UPDATE_CRDS=1. One version (v1alpha1), served and stored, with the status subresource on so that
// spec and status have separate writers (users and the operator) and metadata.generation moves on spec only.
import { stringify } from 'yaml';
import { API_VERSION, CATEGORY, GROUP, REPO, SHIP, VERSION, type CustomResourceKind } from '../resources/index.js';
import { toStructural, type JsonSchema } from './structural.js';

const CRD_KINDS: readonly CustomResourceKind[] = [SHIP, REPO];

/** The openAPIV3Schema of one kind: the Kubernetes envelope around the structural spec and status. */
function openApiSchema(kind: CustomResourceKind): JsonSchema {
  const metadata: JsonSchema = { type: 'object' };
  if (kind.nameMaxLength !== undefined)
    metadata.properties = { name: { type: 'string', maxLength: kind.nameMaxLength } };
  const schema: JsonSchema = {
    description: kind.description,
    type: 'object',
    required: ['spec'],
    properties: {
      apiVersion: { description: `${API_VERSION}.`, type: 'string' },
      kind: { description: `${kind.kind}.`, type: 'string' },
      metadata,
      spec: toStructural(kind.spec, '.spec'),
      status: toStructural(kind.status, '.status'),
    },
  };
  if (kind.rules.length > 0) schema['x-kubernetes-validations'] = kind.rules;
  return schema;
}

export function customResourceDefinition(kind: CustomResourceKind): JsonSchema {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${kind.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: {
        kind: kind.kind,
        listKind: `${kind.kind}List`,
        plural: kind.plural,
        singular: kind.singular,
        ...(kind.shortNames.length > 0 ? { shortNames: kind.shortNames } : {}),
        categories: [CATEGORY],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: kind.printerColumns,
          schema: { openAPIV3Schema: openApiSchema(kind) },
        },
      ],
    },
  };
}

/** `crds/<file>` → its text, as committed. */
export function crdFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const kind of CRD_KINDS) {
    const source = `operator/resources/${kind.singular}.ts`;
    const header =
      `# Generated from ${source} by operator/crds/generate.ts: do not edit by hand.\n` +
      '# After changing the schema: SVC_UPDATE_CRDS=1 npx vitest run test/kube/crds.test.ts\n';
    // lineWidth 0: never fold a CEL rule or a pattern across lines.
    files.set(`${kind.plural}.${GROUP}.yaml`, header + stringify(customResourceDefinition(kind), { lineWidth: 0 }));
  }
  return files;
}
