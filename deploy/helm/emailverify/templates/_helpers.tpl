{{/*
Names and labels.
*/}}
{{- define "emailverify.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Fully qualified app name; app and bundled components append "-<component>", so it is cut to 40
characters to leave room (the longest suffix is "-postgresql", and Service names are DNS labels).
*/}}
{{- define "emailverify.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "emailverify.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Common labels. Call with the root context.
*/}}
{{- define "emailverify.labels" -}}
helm.sh/chart: {{ include "emailverify.chart" . }}
app.kubernetes.io/name: {{ include "emailverify.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: {{ include "emailverify.name" . }}
{{- end }}

{{/*
Selector labels of one component. Call with (dict "root" $ "component" "gateway").
*/}}
{{- define "emailverify.selectorLabels" -}}
app.kubernetes.io/name: {{ include "emailverify.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/*
Labels of one component (common labels plus its selector labels).
Call with (dict "root" $ "component" "gateway").
*/}}
{{- define "emailverify.componentLabels" -}}
{{ include "emailverify.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "emailverify.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "emailverify.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "emailverify.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (toString $tag) }}
{{- end }}
{{- end }}

{{- define "emailverify.configMapName" -}}
{{- printf "%s-config" (include "emailverify.fullname" .) }}
{{- end }}

{{/*
The Secret holding DATABASE_URL, DOWNLOAD_SIGNING_SECRET, WEBHOOK_SECRET_KEY, REDIS_URL (and
POSTGRES_PASSWORD for the bundled PostgreSQL): the chart's own, or .Values.secret.existingSecret.
*/}}
{{- define "emailverify.secretName" -}}
{{- if .Values.secret.existingSecret }}
{{- .Values.secret.existingSecret }}
{{- else }}
{{- printf "%s-secret" (include "emailverify.fullname" .) }}
{{- end }}
{{- end }}

{{/*
The checksum of the Secret the pods read, as their `checksum/secret` annotation, so that a change of any key in
it (WEBHOOK_SECRET_KEYS, say) rolls them: the chart's own Secret as rendered, or, with secret.existingSecret,
that Secret's data as it is in the cluster at install or upgrade (`helm template`, which cannot look it up,
renders the checksum of no data).
*/}}
{{- define "emailverify.secretChecksum" -}}
{{- if .Values.secret.existingSecret }}
{{- $existing := (lookup "v1" "Secret" .Release.Namespace .Values.secret.existingSecret) | default dict }}
{{- get $existing "data" | default dict | toJson | sha256sum }}
{{- else }}
{{- include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
{{- end }}
{{- end }}

{{/*
Connection URLs. The bundled components are reached through their (headless) Services.
*/}}
{{- define "emailverify.postgresql.host" -}}
{{- printf "%s-postgresql" (include "emailverify.fullname" .) }}
{{- end }}

{{- define "emailverify.nats.host" -}}
{{- printf "%s-nats" (include "emailverify.fullname" .) }}
{{- end }}

{{- define "emailverify.redis.host" -}}
{{- printf "%s-redis" (include "emailverify.fullname" .) }}
{{- end }}

{{- define "emailverify.natsUrl" -}}
{{- if .Values.bundled.nats.enabled }}
{{- printf "nats://%s:4222" (include "emailverify.nats.host" .) }}
{{- else }}
{{- required "external.natsUrl is required when bundled.nats.enabled is false" .Values.external.natsUrl }}
{{- end }}
{{- end }}

{{/*
NATS users (natsAuth): one per app, and `admin` for the admin CLI. Each one's password is the Secret key
NATS_<USER>_PASSWORD (file-jobs -> NATS_FILE_JOBS_PASSWORD), which files/nats-auth.conf also names.
*/}}
{{- define "emailverify.natsUsers" -}}
gateway credits verifier file-jobs webhooks admin
{{- end }}

{{- define "emailverify.natsPasswordKey" -}}
{{- printf "NATS_%s_PASSWORD" (. | upper | replace "-" "_") }}
{{- end }}

{{- define "emailverify.natsNamespace" -}}
{{- get .Values.config "NATS_NAMESPACE" | default "emailverify" }}
{{- end }}

{{/*
files/nats-auth.conf with the installation's NATS_NAMESPACE in place of @NS@.
*/}}
{{- define "emailverify.natsAuthConf" -}}
{{- .Files.Get "files/nats-auth.conf" | replace "@NS@" (include "emailverify.natsNamespace" .) }}
{{- end }}

{{- define "emailverify.natsAuthSecretName" -}}
{{- printf "%s-nats-auth" (include "emailverify.fullname" .) }}
{{- end }}

{{/*
DATABASE_URL for the chart's Secret. Call with (dict "root" $ "password" $pgPassword).
*/}}
{{- define "emailverify.databaseUrl" -}}
{{- $v := .root.Values }}
{{- if $v.bundled.postgresql.enabled }}
{{- printf "postgres://postgres:%s@%s:5432/%s" .password (include "emailverify.postgresql.host" .root) $v.bundled.postgresql.database }}
{{- else }}
{{- required "external.databaseUrl (or secret.existingSecret) is required when bundled.postgresql.enabled is false" $v.external.databaseUrl }}
{{- end }}
{{- end }}

{{/*
REDIS_URL, or empty when the gateway keeps its rate limits in process.
*/}}
{{- define "emailverify.redisUrl" -}}
{{- if .Values.bundled.redis.enabled }}
{{- printf "redis://%s:6379" (include "emailverify.redis.host" .) }}
{{- else }}
{{- .Values.external.redisUrl }}
{{- end }}
{{- end }}

{{/*
Whether the gateway gets REDIS_URL from the Secret.
*/}}
{{- define "emailverify.redisEnabled" -}}
{{- if or .Values.bundled.redis.enabled .Values.external.redisUrl .Values.secret.existingSecret }}true{{- end }}
{{- end }}

{{/*
PUBLIC_BASE_URL: config.PUBLIC_BASE_URL, else the first Ingress host, else unset (app default).
*/}}
{{- define "emailverify.publicBaseUrl" -}}
{{- if get .Values.config "PUBLIC_BASE_URL" }}
{{- get .Values.config "PUBLIC_BASE_URL" }}
{{- else if and .Values.ingress.enabled .Values.ingress.hosts }}
{{- $host := (first .Values.ingress.hosts).host }}
{{- $tls := false }}
{{- range .Values.ingress.tls }}
{{- if has $host .hosts }}
{{- $tls = true }}
{{- end }}
{{- end }}
{{- printf "%s://%s" (ternary "https" "http" $tls) $host }}
{{- end }}
{{- end }}

{{/*
An environment value as a string. Helm reads numbers from values files as float64, which would
print large ones in exponent notation (104857600 -> 1.048576e+08); whole numbers print as integers.
*/}}
{{- define "emailverify.envValue" -}}
{{- if and (kindIs "float64" .) (eq (float64 (int64 .)) .) }}
{{- int64 . }}
{{- else }}
{{- toString . }}
{{- end }}
{{- end }}

{{/*
Name of one app's Deployment and Service. Call with (dict "root" $ "name" "gateway").
*/}}
{{- define "emailverify.appFullname" -}}
{{- printf "%s-%s" (include "emailverify.fullname" .root) .name }}
{{- end }}

{{/*
Checks that fail early with a clear message instead of rendering a broken release.
*/}}
{{- define "emailverify.validate" -}}
{{- $v := .Values }}
{{- if and (not $v.bundled.postgresql.enabled) (not $v.secret.existingSecret) (not $v.external.databaseUrl) }}
{{- fail "set external.databaseUrl (or secret.existingSecret), or enable bundled.postgresql" }}
{{- end }}
{{- if and (not $v.bundled.nats.enabled) (not $v.external.natsUrl) }}
{{- fail "set external.natsUrl, or enable bundled.nats" }}
{{- end }}
{{- if not (regexMatch "^[A-Za-z0-9_-]+$" (include "emailverify.natsNamespace" .)) }}
{{- fail "config.NATS_NAMESPACE: letters, digits, '-' or '_' only" }}
{{- end }}
{{- range $name, $app := $v.apps }}
{{- if not (has $name (list "gateway" "credits" "verifier" "file-jobs" "webhooks")) }}
{{- fail (printf "apps.%s: unknown app (expected gateway, credits, verifier, file-jobs or webhooks)" $name) }}
{{- end }}
{{- end }}
{{- end }}
