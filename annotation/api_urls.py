"""REST API URLs (under /api/)."""
from rest_framework.routers import DefaultRouter

from .api import BackgroundJobViewSet, CampaignViewSet

# No format-suffix routes (".json"): the API speaks JSON only, and the custom actions take no format argument.
router = DefaultRouter()
router.include_format_suffixes = False
# Names apart from the pages' ("campaign-list" is the HTML list): the API root links to /api/campaigns/.
router.register("campaigns", CampaignViewSet, basename="api-campaign")
router.register("jobs", BackgroundJobViewSet, basename="api-job")

urlpatterns = router.urls
