"""REST API URLs (under /api/)."""
from rest_framework.routers import DefaultRouter

from .api import CampaignViewSet

router = DefaultRouter()
router.register("campaigns", CampaignViewSet, basename="campaign")

urlpatterns = router.urls
