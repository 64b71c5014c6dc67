// Gateway default/web's class given GwParameters default/mesh with a workload identity (`spiffe`, or
// `istio.enabled`), through the controller's --gateway-class-parameters-refs map: without one, everything
// that needs the proxy's identity is refused on status (src/translate/objects/gateway-identity.ts).
import type { Snapshot } from '../../../src/ir/types.js';
import { translatedIr } from '../translated-ir.js';

const PARAMETERS = {
  spiffe: 'spiffe: {socketPath: /run/spire/agent.sock}',
  istio: 'istio: {enabled: true, caAddress: istiod.istio-system.svc:15012}',
};

/** The IR of default/web from `manifests`, its GatewayClass `gw` deployed with the given identity source. */
export function meshIr(manifests: string, source: keyof typeof PARAMETERS): Snapshot {
  const parameters = `---
apiVersion: gw.dev/v1alpha1
kind: GwParameters
metadata: {name: mesh, namespace: default}
spec: {${PARAMETERS[source]}}
`;
  return translatedIr(`${manifests}\n${parameters}`, 'default/web', {
    classParametersRefs: { gw: { name: 'mesh', namespace: 'default' } },
  });
}
