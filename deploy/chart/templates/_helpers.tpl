{{/* The chart's name, cut to the 63 characters a label allows. */}}
{{- define "rta.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The name of every object: the release's, with the chart's name unless the release's already holds it. */}}
{{- define "rta.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "rta.selectorLabels" -}}
app.kubernetes.io/name: {{ include "rta.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "rta.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | trunc 63 | trimSuffix "-" }}
{{ include "rta.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The Secret RTA_STORE is read from: existingSecret, else the chart's own; empty when there is no store. */}}
{{- define "rta.storeSecret" -}}
{{- if .Values.store.existingSecret -}}
{{- .Values.store.existingSecret -}}
{{- else if .Values.store.url -}}
{{- printf "%s-store" (include "rta.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- define "rta.storeSecretKey" -}}
{{- if .Values.store.existingSecret -}}
{{- .Values.store.existingSecretKey -}}
{{- else -}}
url
{{- end -}}
{{- end -}}

{{/*
Refuses serverDefaults.extraArgs that would put the store URL on the command line or move the server off the port
the probes and the Service use. Prints nothing.
*/}}
{{- define "rta.checkExtraArgs" -}}
{{- range .Values.serverDefaults.extraArgs -}}
{{- $arg := toString . -}}
{{- if hasPrefix "--store" $arg -}}
{{- fail "serverDefaults.extraArgs may not hold --store: a command line is visible to every user of the node; set store.url or store.existingSecret" -}}
{{- else if hasPrefix "--http" $arg -}}
{{- fail "serverDefaults.extraArgs may not hold --http: the chart serves on 0.0.0.0:8722, where the probes and the Service look; set service.port for the Service" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The result ceiling in MiB, read from serverDefaults.extraArgs (--max-result N or --max-result=N; the last one
counts, as on rta's command line), 8 when it is not there.
*/}}
{{- define "rta.maxResultMiB" -}}
{{- $mib := 8 -}}
{{- $next := false -}}
{{- range .Values.serverDefaults.extraArgs -}}
{{- $arg := toString . -}}
{{- if $next -}}
{{- $mib = atoi $arg -}}
{{- $next = false -}}
{{- else if eq $arg "--max-result" -}}
{{- $next = true -}}
{{- else if hasPrefix "--max-result=" $arg -}}
{{- $mib = atoi (trimPrefix "--max-result=" $arg) -}}
{{- end -}}
{{- end -}}
{{- if $next -}}
{{- fail "serverDefaults.extraArgs ends with --max-result and no value" -}}
{{- end -}}
{{- if or (lt $mib 1) (gt $mib 256) -}}
{{- fail "serverDefaults.extraArgs: --max-result takes a whole number of MiB between 1 and 256" -}}
{{- end -}}
{{- $mib -}}
{{- end -}}

{{/* The pod's memory, in MiB: memory.idleFloorMiB + 16 MiB per MiB of ceiling, times memory.answersAtOnce. */}}
{{- define "rta.memoryMiB" -}}
{{- $mib := atoi (include "rta.maxResultMiB" .) -}}
{{- add (int .Values.memory.idleFloorMiB) (mul 16 $mib (int .Values.memory.answersAtOnce)) -}}
{{- end -}}
