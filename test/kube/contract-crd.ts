// The CRD the contract suite installs: its own group (contract.svc.dev), so running the suite against a
// real cluster never touches svc.dev Ships and Repos, with what the operator's CRDs use — a structural
// schema with required fields, an enum, a default and a date-time format, CEL rules (a conditional
// requirement and an immutable field), the status subresource, and printer columns including a condition
// filter (READY).
export const WIDGET = { group: 'contract.svc.dev', version: 'v1', plural: 'widgets', kind: 'Widget' } as const;

export const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${WIDGET.plural}.${WIDGET.group}` },
  spec: {
    group: WIDGET.group,
    scope: 'Namespaced',
    names: {
      plural: WIDGET.plural,
      singular: 'widget',
      kind: WIDGET.kind,
      shortNames: ['wd'],
      categories: ['svc-contract'],
    },
    versions: [
      {
        name: WIDGET.version,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Color', type: 'string', jsonPath: '.spec.color' },
          { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['url'],
                properties: {
                  url: {
                    type: 'string',
                    minLength: 1,
                    'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'url is immutable' }],
                  },
                  color: { type: 'string', enum: ['red', 'green', 'blue'] },
                  size: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
                  labels: { type: 'object', additionalProperties: { type: 'string' } },
                  auth: {
                    type: 'object',
                    required: ['mode'],
                    properties: {
                      mode: { type: 'string', enum: ['Generated', 'Secret', 'None'] },
                      secretRef: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
                    },
                    'x-kubernetes-validations': [
                      {
                        rule: "self.mode == 'Secret' ? has(self.secretRef) : !has(self.secretRef)",
                        message: 'secretRef is required exactly when mode is Secret',
                        fieldPath: '.secretRef',
                        reason: 'FieldValueRequired',
                      },
                    ],
                  },
                },
              },
              status: {
                type: 'object',
                properties: {
                  observedGeneration: { type: 'integer' },
                  phase: { type: 'string' },
                  conditions: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['type', 'status'],
                      properties: {
                        type: { type: 'string' },
                        status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
                        reason: { type: 'string' },
                        message: { type: 'string' },
                        lastTransitionTime: { type: 'string', format: 'date-time' },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};
