"""URL configuration."""
from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.utils.functional import lazy
from django.views.generic import RedirectView

from gecappraise.lazy_views import lazy_view

urlpatterns = [
    # Browsers ask for /favicon.ico on pages without the layout's icon link (the admin, JSON); the static file's
    # address is looked up per request (the manifest of hashed names exists only after collectstatic).
    path("favicon.ico", RedirectView.as_view(url=lazy(static, str)("favicon.svg"), permanent=True)),
    path("admin/", admin.site.urls),
    path("accounts/", include("gecappraise.accounts")),
    path("api/schema/", lazy_view("drf_spectacular.views.SpectacularAPIView"), name="schema"),
    path("api/docs/", lazy_view("drf_spectacular.views.SpectacularSwaggerSplitView", url_name="schema"),
         name="api-docs"),
    path("api/", include("ranking.api_urls")),
    path("api/", include("annotation.api_urls")),
    path("", include("ranking.urls")),
    path("", include("annotation.urls")),
]

handler400 = "gecappraise.error_pages.bad_request"
handler403 = "gecappraise.error_pages.permission_denied"
handler404 = "gecappraise.error_pages.page_not_found"
handler500 = "gecappraise.error_pages.server_error"
