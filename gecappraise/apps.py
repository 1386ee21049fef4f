"""The project's configuration of Django's admin app: its site is ``admin_site.AdminSite``."""
from django.contrib.admin.apps import AdminConfig as DjangoAdminConfig


class AdminConfig(DjangoAdminConfig):
    """Django's admin, with the site of ``gecappraise.admin_site`` as ``admin.site`` (where the models register)."""

    default_site = "gecappraise.admin_site.AdminSite"
