{{/*
The controller's command line, one list item per argument, in the `--flag VALUE` form of
docs/controller-cli.md. Optional flags appear only when their value is set, so the controller's own
defaults stay the single source for them.
*/}}
{{- define "gw.controllerArgs" -}}
{{- $c := .Values.controller }}
{{- $istio := .Values.istio -}}
- controller
- --controller-name
- {{ include "gw.controllerName" . | quote }}
- --gateway-class-name
- {{ include "gw.gatewayClassName" . | quote }}
{{- with .Values.gatewayClassParametersRefs }}
- --gateway-class-parameters-refs
- {{ toJson . | quote }}
{{- end }}
{{- with .Values.discoveryNamespaceSelectors }}
- --discovery-namespace-selectors
- {{ toJson . | quote }}
{{- end }}
{{- with .Values.rbac.gatewayNamespaces }}
- --gateway-namespaces
- {{ join "," . | quote }}
{{- end }}
- --xds-mode
- {{ $c.xds.mode | quote }}
- --xds-port
- {{ $c.service.ports.agwGrpc | quote }}
- --health-port
- {{ $c.service.ports.health | quote }}
- --metrics-port
- {{ $c.service.ports.metrics | quote }}
- --admin-address
- {{ $c.ui.address | quote }}
{{- with $c.ui.tokenSecret }}
- --admin-token-file
- {{ printf "/var/run/secrets/gw/ui-token/%s" .key | quote }}
{{- end }}
{{- if .Values.agentgatewayModels.enabled }}
- --enable-models
{{- end }}
{{- if .Values.xBackend.enabled }}
- --enable-xbackend
{{- end }}
{{- if .Values.inferenceExtension.enabled }}
- --enable-inference-extension
{{- end }}
- --log-level
- {{ $c.logLevel | quote }}
- --log-format
- json
- --leader-elect
- --leader-election-namespace
- {{ .Release.Namespace | quote }}
- --proxy-image
- {{ include "gw.proxyImage" . | quote }}
- --service-name
- {{ include "gw.fullname" . | quote }}
- --service-namespace
- {{ .Release.Namespace | quote }}
- --release-name
- {{ include "gw.clusterName" . | quote }}
{{- /* istio.enabled grants RBAC only (rbac-istio.yaml); the rest are deployer defaults (docs/chart.md). */}}
{{- if $istio.autoEnabled }}
- --istio-auto-enabled
{{- end }}
{{- if $istio.network }}
{{- fail "istio.network is not supported: the proxy does no multi-network routing (east-west gateways), as GwParameters istio.network is refused" }}
{{- end }}
{{- if and $istio.caAddress (or $istio.namespace $istio.revision) }}
{{- fail "istio.namespace and istio.revision name istiod's Service for the default CA address, and istio.caAddress already gives it: set one or the other" }}
{{- end }}
{{- range $flag, $key := dict "--istio-ca-address" "caAddress" "--istio-cluster-id" "clusterId" "--istio-namespace" "namespace" "--istio-revision" "revision" }}
{{- with index $istio $key }}
- {{ $flag }}
- {{ . | quote }}
{{- end }}
{{- end }}
{{- end }}
